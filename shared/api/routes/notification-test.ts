import { randomUUID } from 'node:crypto';
import { getRule } from '../../store/rules-store';
import { getTestResult, takeClientTest } from '../../store/test-sends';
import { enqueueTestSend } from '../../queues/enqueue-deliveries';
import { logger } from '../../observability/logger';
import { ApiError, notFound, tooManyRequests } from '../errors';
import { defineRoute, type Caller } from '../route';
import { limits } from '../limits';
import { testAcceptedExample, testResultExample } from '../examples';
import { testParamsSchema, testResultSchema } from '../notification-test-schemas';
import { idParamsSchema } from '../schemas';

/** The rule's id, when it exists and the caller may see it; otherwise 404. */
async function visibleRuleId(id: number, caller: Caller): Promise<number> {
  const rule = await getRule(id);
  if (!rule || !(await caller.scope.includes(rule.parentId))) throw notFound(`notification ${id}`);
  return rule.id;
}

/**
 * A rule's test alert is sent by the deliver function, the one function allowed to send (SES, Telegram, push,
 * webhooks): the API only enqueues it and reads its outcome.
 */
export const notificationTestRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/notifications/{id}/test',
    operationId: 'testNotification',
    tag: 'notifications',
    summary: 'Send a test alert through a rule’s channels',
    description:
      'Sends a test alert of the rule now, marked TEST in its subject and first line, to every target an alert of the rule would reach, with ' +
      'the same scope checks and consent: a side address that has not confirmed gets no test (and no confirmation link), an unsubscribed ' +
      'or suppressed address nothing, a Telegram chat nobody of the owner’s scope linked nothing. Answers 202 with a testId at once; ' +
      '`getNotificationTest` answers one outcome per target once the test went out (usually within a second or two). A test is not ' +
      'stored in the history and changes no rule, vehicle, budget or escalation. At most `testAlertsPerClientPerHour` tests (10 by default) ' +
      'per client and hour, then 429 with Retry-After. A rule outside your scope is 404; read-only users get 403.',
    auth: true,
    writes: true,
    successStatus: 202,
    params: idParamsSchema,
    response: testResultSchema,
    examples: { response: testAcceptedExample },
    errors: [403, 404, 503],
    async handle({ params, caller, now }) {
      const ruleId = await visibleRuleId(params.id, caller);
      const wait = await takeClientTest(caller.user.parentId, now, limits().testAlertsPerClientPerHour);
      if (wait > 0) throw tooManyRequests(wait, `at most ${limits().testAlertsPerClientPerHour} test alerts per client and hour`);
      const testId = randomUUID();
      try {
        await enqueueTestSend(testId, ruleId);
      } catch (error) {
        logger.warn('test alert not enqueued', { ruleId, error });
        throw new ApiError(503, 'DeliveriesUnavailable', 'the test alert could not be queued; try again later');
      }
      return { status: 202, body: { testId, ruleId, status: 'pending', targets: [] } };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/notifications/{id}/test/{testId}',
    operationId: 'getNotificationTest',
    tag: 'notifications',
    summary: 'Read the outcomes of a test alert',
    description:
      'The test alert `testNotification` accepted: `pending` until it went out, then `done` with one outcome per target (sent, notLinked, ' +
      'notConfirmed, unsubscribed, suppressed, or failed with the reason). Outcomes are kept for a day. A rule outside your scope, or a ' +
      'test of another rule, is 404.',
    auth: true,
    writes: false,
    params: testParamsSchema,
    response: testResultSchema,
    examples: { response: testResultExample },
    errors: [404],
    async handle({ params, caller }) {
      const ruleId = await visibleRuleId(params.id, caller);
      const result = await getTestResult(params.testId);
      if (!result) return { body: { testId: params.testId, ruleId, status: 'pending', targets: [] } };
      if (result.ruleId !== ruleId) throw notFound(`test ${params.testId}`);
      return { body: { ...result, status: 'done' } };
    },
  }),
];
