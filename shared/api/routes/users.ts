import type { StoredUser } from '../../schemas/directory';
import { DirectoryConflictError, createUser, getUser, getUsers, replaceUser, userIdsOfClient } from '../../store/directory-store';
import {
  userCreateBodySchema,
  userFindBodySchema,
  userFindResponseSchema,
  userParamsSchema,
  userRecordSchema,
  userReplaceBodySchema,
} from '../directory-schemas';
import { clientNames, pageOf, userRecord, userSummary } from '../directory-views';
import { conflict, notFound } from '../errors';
import { requireSmsCountry } from '../phone-country';
import { defineRoute, type Caller } from '../route';

/** The user, when it exists and belongs to a client of the caller's scope; otherwise 404. */
export async function visibleUser(id: string, caller: Caller): Promise<StoredUser> {
  const user = await getUser(id);
  if (!user || !(await caller.scope.includes(user.parentId))) throw notFound(`user ${id}`);
  return user;
}

function conflictOf(error: unknown): never {
  if (error instanceof DirectoryConflictError) throw conflict(error.message);
  throw error;
}

const sameText = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export const userRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/users/find',
    operationId: 'findUsers',
    tag: 'users',
    summary: 'List the users of a client and of the clients below it',
    description:
      'Users of the client given as parentId (default your own) and of the clients below it, filtered by userId, login and email ' +
      '(null ignores a filter), ordered by login. A client outside your scope is 404.',
    auth: true,
    writes: false,
    body: userFindBodySchema,
    response: userFindResponseSchema,
    errors: [404],
    async handle({ body, caller }) {
      const clients = new Set(await caller.scope.subtree(body.parentId ?? caller.scope.rootId));
      const ids = body.userId ? [body.userId] : (await Promise.all([...clients].map(userIdsOfClient))).flat();
      const users = (await getUsers(ids))
        .filter((user) => clients.has(user.parentId))
        .filter((user) => (body.login ? sameText(user.login, body.login) : true) && (body.email ? sameText(user.email, body.email) : true))
        .sort((a, b) => a.login.toLowerCase().localeCompare(b.login.toLowerCase()) || a.id.localeCompare(b.id));
      const page = pageOf(users, body);
      const names = await clientNames(page.map((user) => user.parentId));
      return { body: page.map((user) => userSummary(user, names)) };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/users/{id}',
    operationId: 'getUser',
    tag: 'users',
    summary: 'Read one user',
    description: 'The user, when it belongs to your client or a client below it (otherwise 404). Never answers the password.',
    auth: true,
    writes: false,
    params: userParamsSchema,
    response: userRecordSchema,
    errors: [404],
    async handle({ params, caller }) {
      const user = await visibleUser(params.id, caller);
      return { body: userRecord(user, await clientNames([user.parentId])) };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/users',
    operationId: 'createUser',
    tag: 'users',
    summary: 'Create a user',
    description:
      'Creates a user of your client or of a client below it (404 for any other). The login must be free in any letter case (409 ' +
      'otherwise). The password is stored only as a scrypt hash and never answered.',
    auth: true,
    writes: true,
    body: userCreateBodySchema,
    response: userRecordSchema,
    errors: [403, 404, 409],
    async handle({ body, caller }) {
      const parentId = body.parentId ?? caller.scope.rootId;
      await caller.scope.require(parentId, `client ${parentId}`);
      requireSmsCountry(body.phoneNumber);
      const { parentName: _parentName, parentId: _parentId, ...fields } = body;
      const user = await createUser({ ...fields, parentId }).catch(conflictOf);
      return { body: userRecord(user, await clientNames([user.parentId])) };
    },
  }),

  defineRoute({
    method: 'PUT',
    path: '/api/v3/users',
    operationId: 'replaceUser',
    tag: 'users',
    summary: 'Replace a user',
    description:
      'Replaces the whole record: a field not sent takes its default. login, password and email sent as null (or not sent) are left ' +
      'unchanged. The user and its new client must be in your scope (404 otherwise); a new login must be free (409).',
    auth: true,
    writes: true,
    body: userReplaceBodySchema,
    response: userRecordSchema,
    errors: [403, 404, 409],
    async handle({ body, caller }) {
      const previous = await visibleUser(body.id, caller);
      await caller.scope.require(body.parentId, `client ${body.parentId}`);
      if (body.phoneNumber !== previous.phoneNumber) requireSmsCountry(body.phoneNumber);
      const { parentName: _parentName, phoneVerified: _phoneVerified, login, password, email, ...fields } = body;
      const user = await replaceUser(previous, {
        ...fields,
        login: login ?? previous.login,
        email: email ?? previous.email,
        ...(password ? { password } : {}),
      }).catch(conflictOf);
      return { body: userRecord(user, await clientNames([user.parentId])) };
    },
  }),
];
