import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, sqsClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import type { Emulators } from '../../infra/local/emulators';
import { claimAlert, finishAlert, waitForDue } from '../../shared/store/alerts/alert-store';
import { DELIVERY_LEASE_MS } from '../../shared/delivery/deliver-alert';
import { runAlertDuePass } from '../../shared/sweep/alert-due-pass';
import { buildAlertItem, dueShardOf, outboxShardOf } from '../../shared/store/alerts/alerts-store';
import { clearAlert, closeDueAlert, getAlert, transitionAlert } from '../../shared/store/alerts/alert-lifecycle';
import { escalationIdFor } from '../../shared/store/alert-id';
import type { Alert } from '../../shared/schemas/alert';
import type { StoredRule } from '../../shared/schemas/notification';
import { RETRY_WAKE_GRACE_MS } from '../../shared/store/alert-due';
import { startTestEmulators } from '../support/emulators';
import { getAlertItem, putRule } from '../delivery/support/fixtures';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.parse('2026-04-01T08:00:00.000Z');

/**
 * Delivery retries on the alerts' due index: the deliver function's long waits (waitForDue) and the sweep's due
 * pass handing them back, next to escalations and auto-closes, on DynamoDB Local and fauxqs.
 */
describe('delivery retries on the due index', () => {
  let emulators: Emulators;
  let plain: StoredRule;
  let lifecycle: StoredRule;
  let vehicle = 9_800;

  beforeAll(async () => {
    emulators = await startTestEmulators('due-retries');
    plain = await putRule({ stored: true });
    lifecycle = await putRule({ stored: true, settings: { limit: '90', escalateAfter: '15', autoCloseHours: '2' } });
  });
  afterAll(async () => emulators.stop());
  // each test starts with nothing due: what one leaves on the due index would come due in the next one's sweeps
  const created: string[] = [];
  afterEach(async () => {
    for (const alertId of created.splice(0)) {
      for (const id of [alertId, escalationIdFor(alertId)]) {
        await documentClient().send(new DeleteCommand({ TableName: resourcesConfig().ALERTS_TABLE, Key: { alertId: id } }));
      }
    }
    await enqueued();
  });

  /** A pending alert of the rule as evaluate raises it at `at`. */
  async function raise(rule: StoredRule, at: number): Promise<Alert> {
    const event = { kind: 'speeding', time: new Date(at).toISOString(), latitude: 55.7, longitude: 37.6, speed: 120, values: { limit: 90 } };
    const item = buildAlertItem(rule, vehicle++, event, at);
    await documentClient().send(new PutCommand({ TableName: resourcesConfig().ALERTS_TABLE, Item: item }));
    created.push(item.alertId);
    return (await getAlert(item.alertId))!;
  }

  /** An alert whose one target waits for a retry at `retryAt`, as the deliver function leaves it. */
  async function waiting(rule: StoredRule, raisedAt: number, retryAt: number): Promise<Alert> {
    const alert = await raise(rule, raisedAt);
    await claimAlert(alert.alertId, raisedAt, DELIVERY_LEASE_MS, 'first-request');
    const record = {
      attempts: 3,
      error: 'the endpoint answered 503',
      at: new Date(raisedAt).toISOString(),
      nextAttemptAt: new Date(retryAt).toISOString(),
    };
    await waitForDue(alert, retryAt, { 'webhook:hook': record });
    return alert;
  }

  /** The alert ids on the deliveries queue, taken off it. */
  async function enqueued(): Promise<string[]> {
    const ids: string[] = [];
    for (;;) {
      const { Messages = [] } = await sqsClient().send(new ReceiveMessageCommand({ QueueUrl: emulators.queues.deliveries, MaxNumberOfMessages: 10 }));
      if (Messages.length === 0) return ids;
      for (const message of Messages) {
        ids.push((JSON.parse(message.Body!) as { alertId: string }).alertId);
        await sqsClient().send(new DeleteMessageCommand({ QueueUrl: emulators.queues.deliveries, ReceiptHandle: message.ReceiptHandle! }));
      }
    }
  }

  it('hands back the retries that came due, oldest first across the shards, at most the bound per run', async () => {
    const due: Alert[] = [];
    for (const minutes of [7, 3, 5, 1, 6, 2, 4]) due.push(await waiting(plain, T0, T0 + minutes * MINUTE));
    const later = await waiting(plain, T0, T0 + HOUR);
    expect(new Set(due.map((alert) => dueShardOf(alert.alertId))).size).toBeGreaterThan(1);
    const item = await getAlertItem(due[0]!.alertId);
    expect(item).toMatchObject({ retryAt: new Date(T0 + 7 * MINUTE).toISOString(), dueAt: new Date(T0 + 7 * MINUTE).toISOString() });
    expect(item.outbox).toBeUndefined();
    // by retry time: 1, 2, 3, 4, 5, 6, 7 minutes
    const byRetry = [3, 5, 1, 6, 2, 4, 0].map((index) => due[index]!.alertId);

    const at = T0 + 10 * MINUTE;
    const first = (await runAlertDuePass(at, 3)).retried;
    expect(first).toEqual(byRetry.slice(0, 3));
    expect(await enqueued()).toEqual(first);
    for (const alertId of first) {
      // handed back: marked, and left on the due index (no index written) until the deliver function moves it on
      const woken = await getAlertItem(alertId);
      expect(woken).toMatchObject({ status: 'pending', retryWokenAt: at, dueAt: woken.retryAt });
      expect(woken.outbox).toBeUndefined();
    }
    // not taken up yet: they stay first in line and hold the next sweep's hand-backs back, nothing sent twice
    expect((await runAlertDuePass(at + MINUTE, 3)).retried).toEqual([]);
    expect(await enqueued()).toEqual([]);

    // the deliver function takes each up: its next long wait, or its finish, moves it on; then the next ones come
    const takeUp = async (alertId: string, index: number) => {
      await claimAlert(alertId, at + MINUTE, DELIVERY_LEASE_MS, 'handed-back');
      const current = (await getAlert(alertId))!;
      if (index % 2 === 0) await waitForDue(current, T0 + 3 * HOUR, {});
      else await finishAlert(alertId, 'delivered', at + MINUTE, { due: current });
    };
    for (const [index, alertId] of first.entries()) await takeUp(alertId, index);
    const second = (await runAlertDuePass(at + 2 * MINUTE, 3)).retried;
    for (const [index, alertId] of second.entries()) await takeUp(alertId, first.length + index);
    const third = (await runAlertDuePass(at + 3 * MINUTE, 3)).retried;
    expect([second, third]).toEqual([byRetry.slice(3, 6), byRetry.slice(6)]);
    expect(await enqueued()).toEqual([...second, ...third]);
    expect((await getAlertItem(later.alertId)).retryAt).toBe(new Date(T0 + HOUR).toISOString());

    for (const [index, alertId] of [...first, ...second].entries()) {
      const item = await getAlertItem(alertId);
      expect(item.retryWokenAt).toBeUndefined();
      if (index % 2 === 0)
        expect(item).toMatchObject({ retryAt: new Date(T0 + 3 * HOUR).toISOString(), dueAt: new Date(T0 + 3 * HOUR).toISOString() });
      else for (const field of ['retryAt', 'dueAt', 'dueShard']) expect(item[field], field).toBeUndefined();
    }
  });

  it('hands a retry the deliver function never took up to the outbox once its grace has passed', async () => {
    const alert = await waiting(plain, T0, T0 + 4 * HOUR);
    expect((await runAlertDuePass(T0 + 4 * HOUR)).retried).toEqual([alert.alertId]);
    expect(await enqueued()).toEqual([alert.alertId]);
    // the request is lost: nothing takes the alert up
    expect((await runAlertDuePass(T0 + 4 * HOUR + RETRY_WAKE_GRACE_MS - MINUTE)).retried).toEqual([]);
    expect((await runAlertDuePass(T0 + 4 * HOUR + RETRY_WAKE_GRACE_MS)).retried).toEqual([alert.alertId]);
    expect(await enqueued()).toEqual([alert.alertId]);
    const item = await getAlertItem(alert.alertId);
    expect(item).toMatchObject({ status: 'pending', outbox: outboxShardOf(alert.alertId), outboxEnqueuedAt: T0 + 4 * HOUR + RETRY_WAKE_GRACE_MS });
    for (const field of ['retryAt', 'retryWokenAt', 'dueAt', 'dueShard']) expect(item[field], field).toBeUndefined();
  });

  it('handles an entry with several reasons in one run: escalates, and hands the retry back', async () => {
    const both = await waiting(lifecycle, T0, T0 + 14 * MINUTE);
    expect((await getAlertItem(both.alertId)).dueAt).toBe(new Date(T0 + 14 * MINUTE).toISOString());
    const pass = await runAlertDuePass(T0 + 20 * MINUTE);
    expect(pass.escalated).toEqual([escalationIdFor(both.alertId)]);
    expect(pass.retried).toEqual([both.alertId]);
    const item = await getAlertItem(both.alertId);
    expect(item).toMatchObject({ escalatedAt: new Date(T0 + 20 * MINUTE).toISOString(), retryWokenAt: T0 + 20 * MINUTE, dueAt: item.retryAt });
    expect((await enqueued()).sort()).toEqual([both.alertId, escalationIdFor(both.alertId)].sort());

    // the deliver function takes the retry up and delivers it: only the auto-close stays due
    await claimAlert(both.alertId, T0 + 21 * MINUTE, DELIVERY_LEASE_MS, 'handed-back');
    await finishAlert(both.alertId, 'delivered', T0 + 21 * MINUTE, { due: (await getAlert(both.alertId))! });
    const delivered = await getAlertItem(both.alertId);
    expect(delivered.dueAt).toBe(both.autoCloseAt);
    for (const field of ['retryAt', 'retryWokenAt']) expect(delivered[field], field).toBeUndefined();
  });

  it('keeps a waiting retry due when the alert is acknowledged or cleared meanwhile', async () => {
    const acknowledged = await waiting(lifecycle, T0, T0 + 30 * MINUTE);
    const cleared = await waiting(lifecycle, T0, T0 + 40 * MINUTE);
    await transitionAlert(acknowledged.alertId, { to: 'acknowledged', by: 'dispatcher', via: 'api', now: T0 + MINUTE });
    await clearAlert(cleared.alertId, T0 + MINUTE);
    // acknowledged: no escalation any more, the retry before the auto-close; cleared: only the retry
    expect((await getAlertItem(acknowledged.alertId)).dueAt).toBe(new Date(T0 + 30 * MINUTE).toISOString());
    expect((await getAlertItem(cleared.alertId)).dueAt).toBe(new Date(T0 + 40 * MINUTE).toISOString());

    expect((await runAlertDuePass(T0 + 20 * MINUTE)).escalated).not.toContain(escalationIdFor(acknowledged.alertId));
    const pass = await runAlertDuePass(T0 + 45 * MINUTE);
    expect(pass.retried).toEqual(expect.arrayContaining([acknowledged.alertId, cleared.alertId]));
    expect(await enqueued()).toEqual(expect.arrayContaining([acknowledged.alertId, cleared.alertId]));
  });

  it('never drops a retry set after a sweep read the alert to close it', async () => {
    const alert = await raise(lifecycle, T0);
    // escalated earlier, and read by a sweep at its auto-close time; the deliver function then sets a retry
    await runAlertDuePass(T0 + 16 * MINUTE);
    const read = (await getAlert(alert.alertId))!;
    await waitForDue(read, T0 + 3 * HOUR, {});
    expect(await closeDueAlert(read, T0 + 2 * HOUR + MINUTE)).toBe(false);
    expect((await getAlertItem(alert.alertId)).dueAt).toBe(alert.autoCloseAt);

    // the next sweep reads it again: closes it, and the retry stays due
    expect((await runAlertDuePass(T0 + 2 * HOUR + 2 * MINUTE)).closed).toContain(alert.alertId);
    expect(await getAlertItem(alert.alertId)).toMatchObject({ state: 'closed', dueAt: new Date(T0 + 3 * HOUR).toISOString() });
    expect((await runAlertDuePass(T0 + 3 * HOUR)).retried).toEqual([alert.alertId]);
    await enqueued();
  });

  it('takes off a retry left on an alert settled meanwhile, without handing it back', async () => {
    const alert = await waiting(plain, T0, T0 + HOUR);
    // settled without its retry in view (its rule was deleted, say)
    await finishAlert(alert.alertId, 'delivered', T0 + 30 * MINUTE);
    expect((await runAlertDuePass(T0 + HOUR)).retried).toEqual([]);
    const item = await getAlertItem(alert.alertId);
    expect(item.dueAt).toBeUndefined();
    expect(item.dueShard).toBeUndefined();
    expect(await enqueued()).toEqual([]);
  });
});
