import { describe, expect, it } from 'vitest';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { alertPut, buildAlertItem } from '../../shared/store/alerts/alerts-store';
import { countCapacity } from '../support/count-capacity';
import { useDeliverHarness } from '../support/deliver-harness';
import { sentEmails } from '../support/emulators';
import { itemBytes } from '../support/item-size';
import { getAlertItem, putRule, putUser, putVehicle } from './support/fixtures';

/** Write units of one write of `bytes` (1 KB each, started). */
const units = (bytes: number) => Math.ceil(bytes / 1024);
/** DynamoDB's overhead of each index entry, on top of the attributes it holds. */
const INDEX_ENTRY_OVERHEAD = 100;

describe('write units of one alert', () => {
  const harness = useDeliverHarness({ name: 'alert-write-units' });

  it('creating an alert and delivering it to one e-mail address writes the history indexes once, at its creation', async () => {
    const owner = await putUser({ login: 'units-owner', email: 'units-owner@example.com' });
    const rule = await putRule({ userId: owner.id, toEmail: true, recipientIds: [owner.id], stored: true });
    await putVehicle(31, 'Truck 31');
    const now = Date.parse('2026-03-01T10:00:00.000Z');
    const event = {
      kind: 'speeding',
      time: new Date(now - 5_000).toISOString(),
      latitude: 55.7558,
      longitude: 37.6173,
      speed: 104,
      values: { limit: 90 },
    };
    const alert = buildAlertItem(rule, 31, event, now);
    const table = resourcesConfig().ALERTS_TABLE;
    const ofAlerts = (byIndex: Record<string, number>) => Object.fromEntries(Object.entries(byIndex).filter(([key]) => key.startsWith(table)));

    const counter = countCapacity();
    let created: Record<string, number>;
    let delivered: Record<string, number>;
    try {
      // as evaluate writes it: a conditional put in the vehicle's transaction
      await documentClient().send(new TransactWriteCommand({ TransactItems: [alertPut(alert)] }));
      created = ofAlerts(counter.writeUnitsByIndex());
      counter.reset();
      await harness.enqueue(alert.alertId);
      expect(await harness.drainDeliveries({ rounds: 1 })).toBe(1);
      delivered = ofAlerts(counter.writeUnitsByIndex());
    } finally {
      counter.detach();
    }
    expect(await sentEmails(harness.emulators)).toHaveLength(1);
    const final = await getAlertItem(alert.alertId);
    expect(final.status).toBe('delivered');

    // the indexes a new alert enters: both history indexes and the outbox (and byDue when something is due)
    const entered = ['byParentTime', 'byVehicleTime', 'outbox', ...(alert.dueAt ? ['byDue'] : [])];
    expect(Object.keys(created).sort()).toEqual([table, ...entered.map((index) => `${table}/${index}`)].sort());
    // the deliver function's rewrites reach no index but the outbox, which the alert leaves
    expect(Object.keys(delivered).sort()).toEqual([table, `${table}/outbox`]);

    // each write priced at the larger of the item's sizes (as created, as delivered); an index entry at most the
    // whole item plus its overhead
    const item = Math.max(itemBytes(marshall(alert, { removeUndefinedValues: true })), itemBytes(marshall(final, { removeUndefinedValues: true })));
    const indexEntry = units(item + INDEX_ENTRY_OVERHEAD);
    const bound =
      2 * units(item) + // the conditional put, in a transaction (prepare and commit)
      entered.length * indexEntry + // one entry in each index entered
      2 * units(item) + // the delivery: the lease taken, then the target's outcome with the alert finished
      indexEntry; // the outbox entry removed
    const total = (byIndex: Record<string, number>) => Object.values(byIndex).reduce((sum, value) => sum + value, 0);
    expect(total(created) + total(delivered)).toBeLessThanOrEqual(bound);
  });
});
