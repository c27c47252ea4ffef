import { privateTargetsAllowed } from '../../channels/webhook/address-policy';
import { endpointUrlProblems } from '../../channels/webhook/endpoint-url';
import { signingSecrets } from '../../channels/webhook/signing-secrets';
import { isStandardSecret } from '../../channels/webhook/standard-signature';
import {
  WebhookLimitError,
  WebhookUrlTakenError,
  createWebhook,
  deleteWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
  withoutSecret,
  type WebhookChanges,
} from '../../store/webhooks-store';
import { pingWebhook } from '../../delivery/ping-webhook';
import { RETRY_ATTEMPTS, RETRY_HORIZON_SECONDS, RETRY_JITTER, retryScheduleText, spanText } from '../../delivery/retry-backoff';
import { redeliverWebhook, wasDeliveredTo } from '../../delivery/redeliver-webhook';
import type { Alert } from '../../schemas/alert';
import type { StoredWebhook } from '../../schemas/webhook';
import { getStoredAlert } from '../../store/alerts/alert-lifecycle';
import { queryHistory } from '../../store/alerts/history-store';
import { listWebhookAttempts, WEBHOOK_LOG_DAYS } from '../../store/webhook-deliveries';
import { forgetWebhookHealth } from '../../store/circuit-store';
import { takeClientRequest } from '../../store/client-rate';
import { decodeWebhookLogToken, encodeWebhookLogToken } from '../webhook-log-token';
import { conflict, notFound, tooManyRequests, validationError } from '../errors';
import { limits } from '../limits';
import { defineRoute } from '../route';
import { endpointClient, scopedEndpoint } from '../scoped-webhook';
import { parentIdBodySchema, successSchema } from '../schemas';
import {
  createdWebhookSchema,
  MAX_REDELIVERIES,
  redeliverBodySchema,
  redeliveriesSchema,
  rotateSecretBodySchema,
  webhookBodySchema,
  webhookDeliveriesBodySchema,
  webhookDeliveriesSchema,
  webhookEndpointSchema,
  webhookListSchema,
  webhookParamsSchema,
  webhookPingSchema,
  webhookUpdateSchema,
} from '../webhook-schemas';
import {
  parentIdExample,
  redeliveredExample,
  redeliverExample,
  rotateSecretExample,
  secretRotatedExample,
  successExample,
  webhookCreatedExample,
  webhookDeliveriesExample,
  webhookDeliveriesQueryExample,
  webhookExample,
  webhookFailingExample,
  webhookListExample,
  webhookPingExample,
  webhookUpdatedExample,
  webhookUpdateExample,
  webhookUrlTakenExample,
} from '../examples';

const HOUR_MS = 3_600_000;
/** Attempts read for one page of an endpoint's delivery log (fewer are answered when a status filter is given). */
const DELIVERY_LOG_PAGE = 50;
/** The `disabledReason` of an endpoint its client disabled. */
const DISABLED_THROUGH_API = 'disabled through the API';
/** Pings the users of one client may send in a minute, all endpoints together: each is an outgoing HTTPS call. */
export const PINGS_PER_CLIENT_PER_MINUTE = 6;

/** An endpoint enabled again forgets why it was disabled; one disabled through the API says so. */
function enabledState(enabled: boolean, now: number): WebhookChanges {
  if (enabled) return { enabled, disabledAt: null, disabledReason: null };
  return { enabled, disabledAt: new Date(now).toISOString(), disabledReason: DISABLED_THROUGH_API };
}

/** The alerts a redelivery names, each sent to the endpoint before, oldest first; 400/404 naming what is wrong. */
async function alertsToRedeliver(
  endpoint: StoredWebhook,
  body: { alertId?: string | undefined; from?: string | undefined; to?: string | undefined },
) {
  if (body.alertId !== undefined) {
    if (body.from !== undefined || body.to !== undefined)
      throw validationError([{ path: 'alertId', message: 'give alertId, or from and to, not both' }]);
    const alert = await getStoredAlert(body.alertId);
    if (!alert || !wasDeliveredTo(alert, endpoint)) throw notFound(`alert ${body.alertId} of webhook ${endpoint.id}`);
    return [alert];
  }
  if (body.from === undefined || body.to === undefined) {
    throw validationError([{ path: body.from === undefined ? 'from' : 'to', message: 'give alertId, or both from and to' }]);
  }
  const from = new Date(body.from).toISOString();
  const to = new Date(body.to).toISOString();
  if (from > to) throw validationError([{ path: 'to', message: 'must not be before from' }]);
  const page = await queryHistory({ source: { kind: 'clients', parentIds: [endpoint.parentId] }, from, to, limit: 100 });
  const alerts: Alert[] = page.items.filter((alert) => wasDeliveredTo(alert, endpoint));
  if (page.cursor !== null || alerts.length > MAX_REDELIVERIES) {
    throw validationError([{ path: 'from', message: `more than ${MAX_REDELIVERIES} alerts in the range: narrow it` }]);
  }
  return alerts.reverse();
}

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
      `Answer 2xx within 5 s. 5xx, 408, 429 and timeouts are tried again after ${retryScheduleText()} (each ±${RETRY_JITTER * 100}%, ` +
      `never before a Retry-After you answer), ${RETRY_ATTEMPTS} attempts over about ${spanText(RETRY_HORIZON_SECONDS)}; 410 disables the ` +
      'endpoint; any other 4xx or a redirect fails that alert for the endpoint. Each alert reaches ' +
      'each endpoint once (a receiver that answered too late may see it again: drop copies by webhook-id). ' +
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
      const input = { parentId, url: body.url, description: body.description, events: body.events, ruleTypes: body.ruleTypes };
      const endpoint = await createWebhook(input, now, limits().webhooksPerClient).catch((error: unknown) => {
        if (error instanceof WebhookLimitError) {
          throw validationError([{ path: 'parentId', message: `client already has ${error.limit} webhook endpoints, the most allowed` }]);
        }
        if (error instanceof WebhookUrlTakenError) throw conflict(error.message);
        throw error;
      });
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
      'Every webhook endpoint of the client of your user, with whether it is enabled, why it was disabled, and its health (as GET /api/v3/webhooks/{id}). The signing secret is shown only once, when the endpoint is registered.',
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
      'Every webhook endpoint of the client given as parentId (your own or one below it; otherwise 404), with whether it is enabled, why it was disabled, and its health.',
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
    method: 'GET',
    path: '/api/v3/webhooks/{id}',
    operationId: 'getWebhook',
    tag: 'webhooks',
    summary: 'One webhook endpoint (without its secret), with its health',
    description:
      'The endpoint of your client or of one below it, with health: when a delivery last succeeded and last failed, the passing ' +
      'failures in a row, the last error, and since when its circuit is open (its deliveries then wait without spending attempts, one ' +
      'probe a minute tests the endpoint, and the first success closes it; the waiting deliveries then go out oldest first, within ' +
      'minutes). A webhook of a client outside your scope is 404.',
    auth: true,
    writes: false,
    params: webhookParamsSchema,
    response: webhookEndpointSchema,
    examples: { response: webhookFailingExample },
    errors: [404],
    async handle({ params, caller }) {
      const { endpoint } = await scopedEndpoint(params.id, caller);
      return { body: withoutSecret(endpoint) };
    },
  }),

  defineRoute({
    method: 'PUT',
    path: '/api/v3/webhooks/{id}',
    operationId: 'updateWebhook',
    tag: 'webhooks',
    summary: 'Change a webhook endpoint: its signature scheme, event filter, description, or enable it again',
    description:
      'Sets the fields given and leaves the others as they are. signatureScheme switches an endpoint registered before Standard ' +
      'Webhooks (fleetwatch-v1, X-Fleetwatch-Signature) to standard; an endpoint whose secret predates the whsec_ base64 form ' +
      'answers 400 naming signatureScheme until its secret is rotated. events and ruleTypes narrow which alerts it gets ([] for all). ' +
      'enabled: true enables an endpoint disabled (after a 410 Gone, or after its circuit stayed open for 5 days) again, clears disabledAt ' +
      'and disabledReason, and resets its health, which closes its circuit; enabled: false stops deliveries to it. ' +
      'A webhook of a client outside your scope is 404.',
    auth: true,
    writes: true,
    params: webhookParamsSchema,
    body: webhookUpdateSchema,
    response: webhookEndpointSchema,
    examples: { body: webhookUpdateExample, response: webhookUpdatedExample },
    errors: [403, 404],
    async handle({ params, body, caller, now }) {
      const { clientId, endpoint: current } = await scopedEndpoint(params.id, caller);
      if (body.signatureScheme === 'standard' && !signingSecrets(current, now).every(isStandardSecret)) {
        throw validationError([
          { path: 'signatureScheme', message: 'the secret predates Standard Webhooks: rotate it (POST /api/v3/webhooks/{id}/rotate-secret) first' },
        ]);
      }
      const { enabled, ...fields } = body;
      // enabled again, it starts afresh: its circuit closed, nothing held back by old failures
      if (enabled === true) await forgetWebhookHealth(clientId, params.id);
      const updated = await updateWebhook(clientId, params.id, { ...fields, ...(enabled === undefined ? {} : enabledState(enabled, now)) });
      if (!updated) throw notFound(`webhook ${params.id}`);
      return { body: withoutSecret(updated) };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    tag: 'webhooks',
    summary: 'Give a webhook endpoint a new signing secret; the answer shows it, once',
    description:
      'Makes a new whsec_ secret and keeps the current one signing for overlapHours more (default 24, at most 168; 0 drops it at ' +
      'once). During the overlap each delivery carries both signatures: webhook-signature holds two space-separated v1,<signature> ' +
      'entries (X-Fleetwatch-Signature two v1= parts), so a receiver verifies with either secret while it switches. A webhook of a ' +
      'client outside your scope is 404.',
    auth: true,
    writes: true,
    params: webhookParamsSchema,
    body: rotateSecretBodySchema,
    response: createdWebhookSchema,
    examples: { body: rotateSecretExample, response: secretRotatedExample },
    errors: [403, 404],
    async handle({ params, body, caller, now }) {
      const clientId = await endpointClient(params.id, caller);
      const rotated = await rotateWebhookSecret(clientId, params.id, now + body.overlapHours * HOUR_MS);
      if (!rotated) throw notFound(`webhook ${params.id}`);
      return { body: { ...withoutSecret(rotated), secret: rotated.secret } };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/webhooks/{id}/ping',
    operationId: 'pingWebhook',
    tag: 'webhooks',
    summary: 'Send a signed ping to a webhook endpoint now and answer what the receiver said',
    description:
      'POSTs {"type":"ping","pingId","webhookId","parentId","createdAt"} to the endpoint, signed and checked against the address ' +
      "policy exactly as an alert delivery, once and without retries, also to a disabled endpoint. Answers the receiver's status " +
      '(null without an answer), the latency in ms and, unless it answered 2xx, the error. A target the address policy refuses ' +
      `(a private or loopback address) is 400 naming url. At most ${PINGS_PER_CLIENT_PER_MINUTE} pings a minute per client (429). ` +
      'A webhook of a client outside your scope is 404.',
    auth: true,
    writes: true,
    params: webhookParamsSchema,
    response: webhookPingSchema,
    examples: { response: webhookPingExample },
    errors: [403, 404],
    async handle({ params, caller, now }) {
      const { endpoint } = await scopedEndpoint(params.id, caller);
      const wait = await takeClientRequest(caller.user.parentId, now, PINGS_PER_CLIENT_PER_MINUTE, 'ping');
      if (wait > 0) throw tooManyRequests(wait, `at most ${PINGS_PER_CLIENT_PER_MINUTE} webhook pings per minute for your client`);
      const answer = await pingWebhook(endpoint, now);
      if (answer.refusal) throw validationError([{ path: 'url', message: answer.refusal }]);
      const error = answer.outcome.status === 'sent' ? {} : { error: answer.outcome.error };
      return { body: { status: answer.httpStatus, latencyMs: answer.latencyMs, ...error } };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'webhooks',
    summary: "A webhook endpoint's delivery log: each attempt of the last 7 days, newest first",
    description:
      `Every attempt to deliver an alert to the endpoint in the last ${WEBHOOK_LOG_DAYS} days (older ones expire): the alert, its event ` +
      "kind, when, succeeded or failed, the receiver's HTTP status (null without an answer), the latency and the error. status " +
      'filters to succeeded or failed attempts. A page reads 50 attempts, so a filtered page may hold fewer, even none, while ' +
      'nextToken is not null; pass nextToken with the same status to read on (any other token is 400 naming nextToken). ' +
      'A webhook of a client outside your scope is 404.',
    auth: true,
    writes: false,
    params: webhookParamsSchema,
    body: webhookDeliveriesBodySchema,
    response: webhookDeliveriesSchema,
    examples: { body: webhookDeliveriesQueryExample, response: webhookDeliveriesExample },
    errors: [404],
    async handle({ params, body, caller }) {
      await scopedEndpoint(params.id, caller);
      const before = body.nextToken === undefined ? undefined : await decodeWebhookLogToken(body.nextToken, params.id, body.status);
      const page = await listWebhookAttempts(params.id, { status: body.status, before, limit: DELIVERY_LOG_PAGE });
      const nextToken = page.next === null ? null : await encodeWebhookLogToken(page.next, params.id, body.status);
      return { body: { items: page.attempts, nextToken } };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/webhooks/{id}/redeliver',
    operationId: 'redeliverWebhook',
    tag: 'webhooks',
    summary: 'Send alerts to a webhook endpoint again, with their original webhook-id',
    description:
      'Sends the alert alertId, or every alert with an event time in [from, to] (at most ' +
      `${MAX_REDELIVERIES}, else 400 naming from), to the endpoint again, now, once each and without retries: only alerts sent to ` +
      'this endpoint before and kept in the history (any other alertId is 404). Each carries its original body and webhook-id (derived from the alert and ' +
      'the endpoint), so a receiver that already has it drops the copy by webhook-id; it is signed anew with the current secrets. ' +
      'Each attempt is added to the delivery log; the alert itself is not changed. A webhook of a client outside your scope is 404.',
    auth: true,
    writes: true,
    params: webhookParamsSchema,
    body: redeliverBodySchema,
    response: redeliveriesSchema,
    examples: { body: redeliverExample, response: redeliveredExample },
    errors: [403, 404],
    async handle({ params, body, caller, now }) {
      const { endpoint } = await scopedEndpoint(params.id, caller);
      const alerts = await alertsToRedeliver(endpoint, body);
      return { body: { items: await redeliverWebhook(endpoint, alerts, now) } };
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
      if (!(await deleteWebhook(await endpointClient(params.id, caller), params.id))) throw notFound(`webhook ${params.id}`);
      return { body: 'Success' };
    },
  }),
];
