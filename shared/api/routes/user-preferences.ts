import { preferencesOf, replaceUserPreferences } from '../../store/user-preferences';
import { userParamsSchema } from '../directory-schemas';
import { forbidden, notFound } from '../errors';
import { userPreferencesBodySchema, userPreferencesSchema } from '../preferences-schemas';
import { defineRoute } from '../route';
import { visibleUser } from './users';

/**
 * A user's quiet hours and least severities per channel. A user may set its own, read-only or not (as linking a
 * chat, it changes only its own deliveries); a user with write rights those of the users of its scope.
 */
export const userPreferenceRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/v3/users/{id}/preferences',
    operationId: 'getUserPreferences',
    tag: 'users',
    summary: "Read a user's quiet hours and least severity per channel",
    description:
      'The preferences of a user of your client or a client below it (404 otherwise); a user that never set any has no quiet hours ' +
      'and info on every channel.',
    auth: true,
    writes: false,
    params: userParamsSchema,
    response: userPreferencesSchema,
    errors: [404],
    async handle({ params, caller }) {
      return { body: preferencesOf(await visibleUser(params.id, caller)) };
    },
  }),

  defineRoute({
    method: 'PUT',
    path: '/api/v3/users/{id}/preferences',
    operationId: 'replaceUserPreferences',
    tag: 'users',
    summary: "Replace a user's quiet hours and least severity per channel",
    description:
      'Replaces the whole set: a field not sent takes its default (no quiet hours; info). Your own preferences you may always change, ' +
      'read-only or not; those of another user of your scope only with write rights (403 otherwise). A user outside your scope is 404. ' +
      'Preferences apply to the user as a recipient of rules (recipientIds), never to side addresses, chats named on a rule or webhooks.',
    auth: true,
    writes: false,
    params: userParamsSchema,
    body: userPreferencesBodySchema,
    response: userPreferencesSchema,
    errors: [403, 404],
    async handle({ params, body, caller }) {
      const user = await visibleUser(params.id, caller);
      if (user.id !== caller.user.id && caller.user.isReadOnly) {
        throw forbidden("this user has read-only rights and cannot change another user's preferences");
      }
      if (!(await replaceUserPreferences(user.id, body))) throw notFound(`user ${params.id}`);
      return { body };
    },
  }),
];
