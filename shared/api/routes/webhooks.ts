import { privateTargetsAllowed } from '../../channels/webhook/address-policy';
import { endpointUrlProblems } from '../../channels/webhook/endpoint-url';
import { WebhookLimitError, WebhookUrlTakenError, createWebhook, deleteWebhook, findWebhookClient, listWebhooks } from '../../store/webhooks-store';
import { conflict, notFound, validationError } from '../errors';
import { limits } from '../limits';
import { defineRoute } from '../route';
import { parentIdBodySchema, successSchema } from '../schemas';
import { createdWebhookSchema, webhookBodySchema, webhookListSchema, webhookParamsSchema } from '../webhook-schemas';
import { parentIdExample, successExample, webhookCreatedExample, webhookExample, webhookListExample, webhookUrlTakenExample } from '../examples';

/**
 * Webhook endpoints of a client: each alert of the client's rules with `toClient` is POSTed, signed, to each
 * of its enabled endpoints. An endpoint belongs to one client; any other client's endpoint answers 404.
 */
export const webhookRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/webhooks',
    operationId: 'createWebhook',
    tag: 'webhooks',
    summary: 'Register a webhook endpoint; the answer shows its signing secret, once',
    description:
      "Each alert of the client's rules with toClient: true is POSTed as JSON (schema WebhookAlert) with headers " +
      'X-Fleetwatch-Signature (t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">) and Idempotency-Key (the alert id). ' +
      'Answer 2xx within 5 s. 5xx, 408, 429 and timeouts are retried with exponential backoff (30 s, 60 s, 120 s, 240 s), then parked ' +
      'for a redrive; 410 disables the endpoint; any other 4xx or a redirect fails that alert for the endpoint. Each alert reaches ' +
      'each endpoint once (a receiver that answered too late may see it again: drop copies by Idempotency-Key). ' +
      'At most LIMIT_WEBHOOKS_PER_CLIENT (default 10) endpoints per client (400 naming parentId past it); a URL the client ' +
      'already registered answers 409.',
    auth: true,
    writes: true,
    body: webhookBodySchema,
    response: createdWebhookSchema,
    examples: { body: webhookExample, response: webhookCreatedExample, errors: { 409: webhookUrlTakenExample } },
    errors: [403, 404, 409],
    async handle({ body, caller, now }) {
      const parentId = body.parentId ?? caller.user.parentId;
      await caller.scope.require(parentId, `client ${parentId}`);
      const problems = endpointUrlProblems(body.url, privateTargetsAllowed());
      if (problems.length) throw validationError(problems.map((message) => ({ path: 'url', message })));
      const endpoint = await createWebhook({ parentId, url: body.url, description: body.description }, now, limits().webhooksPerClient).catch(
        (error: unknown) => {
          if (error instanceof WebhookLimitError) {
            throw validationError([{ path: 'parentId', message: `client already has ${error.limit} webhook endpoints, the most allowed` }]);
          }
          if (error instanceof WebhookUrlTakenError) throw conflict(error.message);
          throw error;
        },
      );
      return { body: endpoint };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/webhooks',
    operationId: 'listWebhooks',
    tag: 'webhooks',
    summary: 'Webhook endpoints of your own client (without their secrets)',
    description:
      'Every webhook endpoint of the client of your user, with whether it is enabled and why it was disabled. The signing secret is shown only once, when the endpoint is registered.',
    auth: true,
    writes: false,
    response: webhookListSchema,
    examples: { response: webhookListExample },
    async handle({ caller }) {
      return { body: await listWebhooks(caller.user.parentId) };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/webhooks/find',
    operationId: 'findWebhooks',
    tag: 'webhooks',
    summary: 'Webhook endpoints of one client: yours or one below yours (without their secrets)',
    description:
      'Every webhook endpoint of the client given as parentId (your own or one below it; otherwise 404), with whether it is enabled and why it was disabled.',
    auth: true,
    writes: false,
    body: parentIdBodySchema,
    response: webhookListSchema,
    examples: { body: parentIdExample, response: webhookListExample },
    errors: [404],
    async handle({ body, caller }) {
      await caller.scope.require(body.parentId, `client ${body.parentId}`);
      return { body: await listWebhooks(body.parentId) };
    },
  }),

  defineRoute({
    method: 'DELETE',
    path: '/api/v3/webhooks/{id}',
    operationId: 'deleteWebhook',
    tag: 'webhooks',
    summary: 'Delete a webhook endpoint; nothing more is sent to it',
    description:
      'Removes the endpoint of your client or of one below it; alerts raised afterwards are not sent to it. A webhook of a client outside your scope is 404. ' +
      'The id as registration or a listing answered it: <parentId>.<22 base64url characters>, or a bare GUID for an endpoint registered by an earlier version.',
    auth: true,
    writes: true,
    params: webhookParamsSchema,
    response: successSchema,
    examples: { response: successExample },
    errors: [403, 404],
    async handle({ params, caller }) {
      const clientId = await findWebhookClient(params.id, caller.user.parentId);
      if (!clientId || !(await caller.scope.includes(clientId)) || !(await deleteWebhook(clientId, params.id))) {
        throw notFound(`webhook ${params.id}`);
      }
      return { body: 'Success' };
    },
  }),
];
