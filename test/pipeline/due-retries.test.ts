import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, sqsClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import type { Emulators } from '../../infra/local/emulators';
import { claimAlert, finishAlert, waitForDue } from '../../shared/delivery/alert-store';
import { DELIVERY_LEASE_MS } from '../../shared/delivery/deliver-alert';
import { runAlertDuePass } from '../../shared/pipeline/sweep/alert-due-pass';
import { buildAlertItem, dueShardOf, outboxShardOf } from '../../shared/store/alerts-store';
import { clearAlert, closeDueAlert, getAlert, transitionAlert } from '../../shared/store/alert-lifecycle';
import { escalationIdFor } from '../../shared/store/alert-id';
import type { Alert } from '../../shared/schemas/alert';
import type { StoredRule } from '../../shared/schemas/notification';
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

  /** A pending alert of the rule as evaluate raises it at `at`. */
  async function raise(rule: StoredRule, at: number): Promise<Alert> {
    const event = { kind: 'speeding', time: new Date(at).toISOString(), latitude: 55.7, longitude: 37.6, speed: 120, values: { limit: 90 } };
    const item = buildAlertItem(rule, vehicle++, event, at);
    await documentClient().send(new PutCommand({ TableName: resourcesConfig().ALERTS_TABLE, Item: item }));
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

    const runs = [];
    for (let run = 0; run < 4; run++) runs.push((await runAlertDuePass(T0 + 10 * MINUTE, 3)).retried);
    expect(runs).toEqual([byRetry.slice(0, 3), byRetry.slice(3, 6), byRetry.slice(6), []]);
    expect(await enqueued()).toEqual(byRetry);
    for (const alert of due) {
      const woken = await getAlertItem(alert.alertId);
      expect(woken).toMatchObject({ status: 'pending', outbox: outboxShardOf(alert.alertId), outboxEnqueuedAt: T0 + 10 * MINUTE });
      expect(woken.retryAt).toBeUndefined();
      expect(woken.dueAt).toBeUndefined();
    }
    expect((await getAlertItem(later.alertId)).retryAt).toBe(new Date(T0 + HOUR).toISOString());
  });

  it('handles an entry with several reasons in one run: escalates, hands the retry back, keeps the auto-close due', async () => {
    const alert = await waiting(lifecycle, T0, T0 + 10 * MINUTE);
    expect((await getAlertItem(alert.alertId)).dueAt).toBe(new Date(T0 + 10 * MINUTE).toISOString());
    expect((await runAlertDuePass(T0 + 12 * MINUTE)).retried).toEqual([alert.alertId]);
    // the retry handed back, the escalation still due
    expect((await getAlertItem(alert.alertId)).dueAt).toBe(alert.escalateAt);

    const both = await waiting(lifecycle, T0, T0 + 14 * MINUTE);
    const pass = await runAlertDuePass(T0 + 20 * MINUTE);
    expect(pass.escalated).toContain(escalationIdFor(both.alertId));
    expect(pass.retried).toEqual([both.alertId]);
    const item = await getAlertItem(both.alertId);
    expect(item).toMatchObject({
      escalatedAt: new Date(T0 + 20 * MINUTE).toISOString(),
      dueAt: both.autoCloseAt,
      outbox: outboxShardOf(both.alertId),
    });
    expect(item.retryAt).toBeUndefined();
    expect(await enqueued()).toEqual(expect.arrayContaining([alert.alertId, both.alertId, escalationIdFor(both.alertId)]));
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
    expect((await getAlertItem(acknowledged.alertId)).dueAt).toBe(acknowledged.autoCloseAt);
    expect((await getAlertItem(cleared.alertId)).dueAt).toBeUndefined();
    await enqueued();
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
    await finishAlert(alert.alertId, 'delivered', T0 + 30 * MINUTE);
    expect((await runAlertDuePass(T0 + HOUR)).retried).toEqual([]);
    const item = await getAlertItem(alert.alertId);
    expect(item.dueAt).toBeUndefined();
    expect(item.dueShard).toBeUndefined();
    expect(await enqueued()).toEqual([]);
  });
});
