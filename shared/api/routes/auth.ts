import { decoyHash, hashPassword, needsRehash, verifyPassword } from '../../auth/password';
import { clearLoginFailures, reserveLoginAttempt } from '../../store/login-throttle';
import { startSession } from '../../store/sessions';
import { findCredential, getUser, replacePasswordHash } from '../../store/directory-store';
import { tooManyRequests, unauthorized } from '../errors';
import { defineRoute } from '../route';
import { limits } from '../limits';
import { loginBodySchema, loginResponseSchema, sessionCheckResponseSchema } from '../auth-schemas';
import { loginAnswerExample, loginExample } from '../examples';

export const authRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/auth/login',
    operationId: 'login',
    tag: 'auth',
    summary: 'Log in and obtain a session token',
    description:
      "The session lasts the user's sessionDuration (default 30 minutes) and every request prolongs it. A user holds at most 50 " +
      'active sessions: a further login ends the oldest. After 5 failed attempts on a login each further attempt must wait ' +
      '(1 s, doubling, at most 15 minutes): 429 with Retry-After. Attempts are counted per login and source address, and per ' +
      'source address over all logins.',
    auth: false,
    writes: false,
    body: loginBodySchema,
    response: loginResponseSchema,
    examples: { body: loginExample, response: loginAnswerExample },
    errors: [],
    async handle({ body, now, sourceIp }) {
      const { loginFreeAttemptsPerAddress, loginFreeAttemptsPerIp, loginMaxDelayMs } = limits();
      const thresholds = { freePerAddress: loginFreeAttemptsPerAddress, freePerIp: loginFreeAttemptsPerIp, maxDelayMs: loginMaxDelayMs };
      const wait = await reserveLoginAttempt(body.login, sourceIp, now, thresholds);
      if (wait > 0) throw tooManyRequests(wait, 'too many failed logins: wait before trying again');
      const credential = await findCredential(body.login);
      // an unknown login still costs one scrypt comparison, so timing does not tell which logins exist
      const passwordMatches = await verifyPassword(body.password, credential?.passwordHash ?? (await decoyHash()));
      const user = credential && passwordMatches ? await getUser(credential.userId) : null;
      if (!user || !user.isEnabled) throw unauthorized('wrong login or password');
      if (needsRehash(credential!.passwordHash)) {
        await replacePasswordHash(body.login, credential!.passwordHash, await hashPassword(body.password));
      }
      await clearLoginFailures(body.login, sourceIp);
      const session = await startSession(user, now);
      return { body: { AuthId: session.token, User: user.login } };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/auth/check',
    operationId: 'checkSession',
    tag: 'auth',
    summary: 'Check that the session is active',
    description:
      '200 while the session of X-Auth is active (the request prolongs it), 401 when it has ended. The answer names the ' +
      'logged-in user (userId) and its client (parentId), the ids the other endpoints take.',
    auth: true,
    writes: false,
    response: sessionCheckResponseSchema,
    async handle({ caller }) {
      return { body: { expiresAt: new Date(caller.session.expiresAt).toISOString(), userId: caller.user.id, parentId: caller.user.parentId } };
    },
  }),
];
