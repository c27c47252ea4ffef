import { smsConfig } from '../../config';
import { sendSms } from '../../channels/sms/send-sms';
import { verificationText } from '../../channels/sms/verification-text';
import { CODE_TTL_MS, checkCode, newCode, storeCode, takeCodeBudget } from '../../store/phone-verification';
import { userParamsSchema } from '../directory-schemas';
import { ApiError, tooManyRequests, validationError } from '../errors';
import { requireSmsCountry } from '../phone-country';
import { phoneConfirmBodySchema, phoneConfirmResponseSchema, phoneVerificationResponseSchema } from '../phone-schemas';
import { defineRoute } from '../route';
import { visibleUser } from './users';

export const phoneVerificationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/users/{id}/phone/verification',
    operationId: 'sendPhoneVerification',
    tag: 'users',
    summary: "Send a verification code to a user's phone number",
    description:
      'Sends a six-digit code by SMS to the phoneNumber of the user (of your client or one below it; 404 otherwise). Alerts go to the ' +
      'number by SMS only after the code comes back through POST /api/v3/users/{id}/phone/verification/confirm, within 10 minutes and ' +
      '5 tries. A new code replaces the previous one. Codes are limited per number and per client per UTC day (429 with Retry-After ' +
      'past either). 400 on phoneNumber when the user has none, or its country is not one the installation sends SMS to; 400 when the ' +
      'number opted out of SMS (it replied STOP).',
    auth: true,
    writes: true,
    params: userParamsSchema,
    response: phoneVerificationResponseSchema,
    errors: [403, 404, 503],
    async handle({ params, caller, now }) {
      const user = await visibleUser(params.id, caller);
      if (!user.phoneNumber) throw validationError([{ path: 'phoneNumber', message: 'the user has no phoneNumber: set one with PUT /api/v3/users' }]);
      requireSmsCountry(user.phoneNumber);
      const config = smsConfig();
      const spent = await takeCodeBudget(
        user.parentId,
        user.phoneNumber,
        { perNumber: config.SMS_CODES_PER_NUMBER_PER_DAY, perClient: config.SMS_CODES_PER_CLIENT_PER_DAY },
        now,
      );
      if (spent) {
        const whose = spent.spent === 'number' ? 'this number' : "your client's users";
        throw tooManyRequests(
          spent.resumesAt - now,
          `${whose} had as many verification codes as a day allows; try again after ${new Date(spent.resumesAt).toISOString()}`,
        );
      }
      const code = newCode();
      await storeCode(user.id, user.phoneNumber, code, now);
      const outcome = await sendSms(
        { to: user.phoneNumber, body: verificationText(user.language, code), context: { purpose: 'verification', userId: user.id } },
        config,
      );
      if (outcome.status === 'optedOut')
        throw validationError([
          { path: 'phoneNumber', message: 'this number opted out of SMS (it replied STOP); it must reply START before it can be verified' },
        ]);
      if (outcome.status === 'failed') throw validationError([{ path: 'phoneNumber', message: `the code could not be sent: ${outcome.error}` }]);
      if (outcome.status === 'retry')
        throw new ApiError(503, 'ServiceUnavailable', 'the SMS service did not take the code; try again in a minute', { 'Retry-After': '60' });
      return { body: { phoneNumber: user.phoneNumber, expiresAt: new Date(now + CODE_TTL_MS).toISOString() } };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/users/{id}/phone/verification/confirm',
    operationId: 'confirmPhoneVerification',
    tag: 'users',
    summary: "Confirm a user's phone number with the code sent to it",
    description:
      'The right code marks the number verified: from then on alerts may go to it by SMS. A wrong code spends one of 5 tries (400 on ' +
      'code, saying how many are left); an expired or spent code, or one sent to a number the user no longer has, is 400 on code: ask ' +
      'for a new one.',
    auth: true,
    writes: true,
    params: userParamsSchema,
    body: phoneConfirmBodySchema,
    response: phoneConfirmResponseSchema,
    errors: [403, 404],
    async handle({ params, body, caller, now }) {
      const user = await visibleUser(params.id, caller);
      const { result, triesLeft } = await checkCode(user.id, body.code, now);
      if (result === 'wrong')
        throw validationError([{ path: 'code', message: `wrong code; ${triesLeft} ${triesLeft === 1 ? 'try' : 'tries'} left` }]);
      if (result !== 'verified' || !user.phoneNumber)
        throw validationError([
          { path: 'code', message: 'no code waits for this number (expired, tried too often, or the number changed): ask for a new one' },
        ]);
      return { body: { phoneNumber: user.phoneNumber, phoneVerified: true as const } };
    },
  }),
];
