import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { storedRuleSchema } from '../../shared/schemas/notification';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { createSweepHandler } from '../../functions/sweep/handler';
import { runLifecyclePass } from '../../shared/sweep/lifecycle-pass';
import { lambdaContext } from '../../infra/local/sqs-poller';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { alertsInTable, DAY_MS, drainQueue, invoke, putRule, sqsRecord, storedRule, T0, terminalMessage } from './support';

async function ruleItem(id: number) {
  const { Item } = await documentClient().send(new GetCommand({ TableName: resourcesConfig().RULES_TABLE, Key: { id }, ConsistentRead: true }));
  return Item;
}

const sweepAt = (now: number) => createSweepHandler({ clock: () => now })({}, lambdaContext('sweep'));

describe('sweep: rule lifecycle', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-sweep');
  });
  afterAll(async () => emulators.stop());

  it('deactivates an expired rule and prolongs an expired auto-prolonged one, found through the expiry index', async () => {
    const expired = new Date(T0 - 45 * DAY_MS).toISOString();
    await putRule(storedRule({ id: 11, name: 'expired', expiresAt: expired, validity: 30, vehicleIds: [901] }));
    await putRule(storedRule({ id: 12, name: 'auto', expiresAt: expired, validity: 30, autoProlongation: true, vehicleIds: [902] }));
    await putRule(storedRule({ id: 13, name: 'current', vehicleIds: [903] }));
    await putRule(storedRule({ id: 14, name: 'inactive', active: false, expiresAt: expired, vehicleIds: [904] }));

    const report = await sweepAt(T0);
    expect(report.deactivated).toEqual([11]);
    expect(report.prolonged).toEqual([12]);

    const deactivated = storedRuleSchema.parse(await ruleItem(11));
    expect(deactivated).toMatchObject({ active: false, version: 2, expiresAt: expired, updatedAt: new Date(T0).toISOString() });
    expect(await ruleItem(11)).not.toHaveProperty('expiryShard');

    // 45 days past a 30-day period: two periods added, ending 15 days from now
    const prolonged = storedRuleSchema.parse(await ruleItem(12));
    expect(prolonged).toMatchObject({ active: true, version: 2, expiresAt: new Date(T0 + 15 * DAY_MS).toISOString() });
    expect(prolonged.validFrom).toBe(new Date(T0 - 15 * DAY_MS).toISOString());

    expect(storedRuleSchema.parse(await ruleItem(13))).toMatchObject({ active: true, version: 1 });
    expect(storedRuleSchema.parse(await ruleItem(14))).toMatchObject({ active: false, version: 1 });

    // a second sweep finds nothing left to do
    const again = await sweepAt(T0 + 60_000);
    expect(again.deactivated).toEqual([]);
    expect(again.prolonged).toEqual([]);
    expect(storedRuleSchema.parse(await ruleItem(12))).toMatchObject({ version: 2 });
  });

  it('leaves a rule edited since it was read to the next sweep', async () => {
    const expired = new Date(T0 - DAY_MS).toISOString();
    const rule = storedRule({ id: 21, name: 'edited meanwhile', expiresAt: expired, vehicleIds: [921] });
    await putRule({ ...rule, version: 2, name: 'renamed by the API' });

    const result = await runLifecyclePass(T0, async () => [rule]);
    expect(result.skipped).toEqual([21]);
    expect(result.deactivated).toEqual([]);
    expect(await ruleItem(21)).toMatchObject({ active: true, version: 2, name: 'renamed by the API' });
  });

  it('stops a rule switched off for the next message of a running evaluator', async () => {
    const rule = storedRule({ id: 31, name: 'switched off', vehicleIds: [931, 932], settings: { limit: '90', minDuration: '0' } });
    await putRule(rule);
    let now = T0 + 30_000;
    const evaluate = createEvaluateHandler({ clock: () => now });
    await invoke(evaluate, [sqsRecord(terminalMessage(931, 30, 120))]);
    expect((await alertsInTable()).filter((alert) => alert.ruleId === 31)).toHaveLength(1);

    // switched off as the API would do it (a new version), projected onto the rule's vehicles
    await putRule({ ...rule, active: false, version: 2 });
    now = T0 + 40_000;
    await invoke(evaluate, [sqsRecord(terminalMessage(932, 40, 130))]);
    expect((await alertsInTable()).filter((alert) => alert.ruleId === 31)).toHaveLength(1);
    await drainQueue(emulators.queues.deliveries);
  });
});

describe('sweep: connection loss', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-connection');
  });
  afterAll(async () => emulators.stop());

  const alertsOf = async (vehicleId: number) => (await alertsInTable()).filter((alert) => alert.vehicleId === vehicleId);

  it('raises one connectionLost alert for a silent vehicle, however often the sweep runs', async () => {
    await putRule(storedRule({ id: 41, type: 7, name: 'Silent for 5 minutes', vehicleIds: [951], settings: { minutes: '5' } }));
    await invoke(createEvaluateHandler({ clock: () => T0 }), [sqsRecord(terminalMessage(951, 0, 40))]);

    await sweepAt(T0 + 4 * 60_000);
    expect(await alertsOf(951)).toHaveLength(0);

    for (const minutes of [7, 8, 9]) await sweepAt(T0 + minutes * 60_000);
    const alerts = await alertsOf(951);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ ruleId: 41, event: { kind: 'connectionLost', time: new Date(T0 + 5 * 60_000).toISOString() } });
    const requests = (await drainQueue(emulators.queues.deliveries)).map((request) => JSON.parse(request.Body!).alertId);
    expect(requests).toEqual([alerts[0]!.alertId]);
  });

  it('never reports a loss for a vehicle that keeps reporting, though its heartbeats are coalesced', async () => {
    await putRule(storedRule({ id: 42, type: 7, name: 'Silent for 1 minute', vehicleIds: [952], settings: { minutes: '1' } }));
    let now = T0;
    const evaluate = createEvaluateHandler({ clock: () => now });
    // a message every 25 s, so the stored last-seen (written once a minute) trails by up to 50 s;
    // the sweep runs between messages, 15 s after each
    for (let second = 0; second <= 600; second += 25) {
      now = T0 + second * 1000;
      await invoke(evaluate, [sqsRecord(terminalMessage(952, second, 40))]);
      await sweepAt(now + 15_000);
    }
    expect(await alertsOf(952)).toHaveLength(0);

    // then it falls silent: one alert
    for (const minutes of [11, 12, 13]) await sweepAt(T0 + minutes * 60_000);
    expect(await alertsOf(952)).toHaveLength(1);
  });
});
