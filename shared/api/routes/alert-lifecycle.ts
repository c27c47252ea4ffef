import type { AlertState } from '../../schemas/alert';
import { transitionAlert, type TransitionResult } from '../../store/alerts/alert-lifecycle';
import { conflict, notFound } from '../errors';
import { defineRoute, type Caller } from '../route';
import {
  alertIdParamsSchema,
  bulkAcknowledgeBodySchema,
  bulkAcknowledgeResponseSchema,
  lifecycleBodySchema,
  lifecycleOutcomeSchema,
  type LifecycleOutcome,
} from '../lifecycle-schemas';
import { acknowledgeAnswerExample, acknowledgeExample, bulkAcknowledgeAnswerExample, bulkAcknowledgeExample, closeAnswerExample } from '../examples';

const OUTCOMES = {
  acknowledged: { changed: 'acknowledged', already: 'alreadyAcknowledged' },
  closed: { changed: 'closed', already: 'alreadyClosed' },
} as const;

/** One alert moved by the caller: only a stored alert of a client in the caller's scope is seen at all. */
async function change(caller: Caller, alertId: string, to: 'acknowledged' | 'closed', comment: string | undefined, now: number) {
  const result = await transitionAlert(alertId, { to, by: caller.user.login, via: 'api', now, ...(comment ? { comment } : {}) }, (alert) =>
    caller.scope.includes(alert.parentId),
  );
  return outcomeOf(alertId, to, result);
}

function outcomeOf(alertId: string, to: 'acknowledged' | 'closed', result: TransitionResult): LifecycleOutcome {
  if (result.outcome === 'missing') return { alertId, outcome: 'notFound' };
  const { state, acknowledgement } = result.alert;
  const outcome = result.outcome === 'refused' ? 'refused' : OUTCOMES[to][result.outcome];
  return { alertId, outcome, state, ...(acknowledgement ? { acknowledgement } : {}) };
}

/** The answer of a one-alert route: the outcome, 404 outside the scope, 409 when the state does not allow it. */
function single(outcome: LifecycleOutcome, what: AlertState) {
  if (outcome.outcome === 'notFound') throw notFound(`alert ${outcome.alertId}`);
  if (outcome.outcome === 'refused') throw conflict(`alert ${outcome.alertId} is ${outcome.state} and cannot be ${what} any more`);
  return { body: outcome };
}

export const alertLifecycleRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/notifications/history/{alertId}/acknowledge',
    operationId: 'acknowledgeAlert',
    tag: 'notifications',
    summary: 'Acknowledge one alert',
    description:
      'Marks a stored alert of your scope as taken care of, by you, with an optional comment. Acknowledging again changes nothing and ' +
      'answers alreadyAcknowledged with who acknowledged it and when. A cleared or closed alert answers 409; an alert outside your scope 404.',
    auth: true,
    writes: true,
    params: alertIdParamsSchema,
    body: lifecycleBodySchema,
    response: lifecycleOutcomeSchema,
    examples: { body: acknowledgeExample, response: acknowledgeAnswerExample },
    errors: [403, 404, 409],
    async handle({ params, body, caller, now }) {
      return single(await change(caller, params.alertId, 'acknowledged', body.comment, now), 'acknowledged');
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/notifications/history/acknowledge',
    operationId: 'acknowledgeAlerts',
    tag: 'notifications',
    summary: 'Acknowledge several alerts',
    description:
      'Acknowledges up to 100 stored alerts with one optional comment, each on its own: the answer lists, in the order of ids, what became ' +
      'of each (acknowledged, alreadyAcknowledged with by whom, refused for a cleared or closed alert, notFound for one outside your scope).',
    auth: true,
    writes: true,
    body: bulkAcknowledgeBodySchema,
    response: bulkAcknowledgeResponseSchema,
    examples: { body: bulkAcknowledgeExample, response: bulkAcknowledgeAnswerExample },
    errors: [403],
    async handle({ body, caller, now }) {
      const results: LifecycleOutcome[] = [];
      for (const alertId of body.ids) results.push(await change(caller, alertId, 'acknowledged', body.comment, now));
      return { body: { results } };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/notifications/history/{alertId}/close',
    operationId: 'closeAlert',
    tag: 'notifications',
    summary: 'Close one alert',
    description:
      'Closes a stored alert of your scope, open or acknowledged, with an optional comment: nothing more is expected of anyone. Closing ' +
      'again answers alreadyClosed; a cleared alert answers 409; an alert outside your scope 404.',
    auth: true,
    writes: true,
    params: alertIdParamsSchema,
    body: lifecycleBodySchema,
    response: lifecycleOutcomeSchema,
    examples: { body: acknowledgeExample, response: closeAnswerExample },
    errors: [403, 404, 409],
    async handle({ params, body, caller, now }) {
      return single(await change(caller, params.alertId, 'closed', body.comment, now), 'closed');
    },
  }),
];
