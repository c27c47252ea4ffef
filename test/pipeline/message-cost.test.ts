import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { marshall } from '@aws-sdk/util-dynamodb';
import { vehicleStateTable } from '../../shared/store/vehicle-state-store';
import { itemBytes } from '../support/item-size';
import { PACKED_STATE_ATTRIBUTE, unpackState } from '../../shared/store/vehicle-state-codec';
import { measureMessageCost, type MessageCost } from './message-cost-scenario';
import { scanTable } from './support';

/**
 * 20 vehicles, each reporting every 30 s; the first 5 minutes warm the rule cache and write each vehicle once, and are
 * not counted. Vehicles 5 to 19 speed in minutes 5 to 19, inside the 15 minutes counted, which hold five of the
 * connection-loss rule's coalesced heartbeats (one every 3 minutes).
 */
const FLEET = { vehicles: 20, minutes: 20, warmUpMinutes: 5 } as const;
const COUNTED_MESSAGES = FLEET.vehicles * (FLEET.minutes - FLEET.warmUpMinutes) * 2;

/**
 * DynamoDB work per message in the deployed shape (FIFO batches of 10), counted in billed capacity units: with each
 * vehicle clock, and with every message stamped by its producer under the default (exact) clock.
 */
describe.each(['exact', 'coalesced', 'stamped'] as const)('DynamoDB units per message, batches of 10, %s vehicle clock', (clock) => {
  let emulators: Emulators;
  let cost: MessageCost;
  beforeAll(async () => {
    emulators = await startTestEmulators(`pipeline-message-cost-${clock}`);
    const options = clock === 'stamped' ? { vehicleClock: 'exact' as const, stamped: true } : { vehicleClock: clock };
    cost = await measureMessageCost({ ...FLEET, ...options });
  }, 300_000);
  afterAll(async () => emulators.stop());

  it('processes every message and raises the planted speeding alerts', () => {
    expect(cost.failures).toBe(0);
    expect(cost.messages).toBe(COUNTED_MESSAGES);
    expect(cost.alerts).toBeGreaterThan(0);
  });

  it('reads no rule or geozone once the rule cache is warm', () => {
    expect(cost.ruleTableUnits).toBe(0);
  });

  it('lets the sweep write nothing while no vehicle falls silent, and read only its empty queries', () => {
    expect(cost.sweep.runs).toBeGreaterThan(0);
    expect(cost.sweep.writeUnits).toBe(0);
    // each shard of its indexes asked once a run (about 40 units), a query that finds nothing billed half a
    // unit, whatever the fleet: nothing is read per vehicle
    expect(cost.sweep.readUnits / cost.sweep.runs).toBeGreaterThan(0);
    expect(cost.sweep.readUnits / cost.sweep.runs).toBeLessThan(50);
  });

  if (clock === 'exact') {
    it('reads each vehicle item eventually consistent and writes it with every message', () => {
      // every message is committed under the item's version, so a stale read cannot go unnoticed: half a unit
      expect(cost.readUnitsPerMessage).toBeCloseTo(0.5, 1);
      // one write of an item under 1 KB per message, plus the speeding episodes' alerts
      expect(cost.writeUnitsPerMessage).toBeGreaterThanOrEqual(1);
      expect(cost.writeUnitsPerMessage).toBeLessThan(1.3);
    });
  } else {
    it('reads each vehicle item once per message and writes a heartbeat only every few minutes', () => {
      // stamped messages are written as the coalesced clock writes, whichever clock is configured
      // one consistent read of an item under 4 KB per message
      expect(cost.readUnitsPerMessage).toBeCloseTo(1, 1);
      // a 30-minute connection-loss rule: a heartbeat every 3 minutes (one message in six), which moves the
      // silence deadline about once per limit; plus the speeding episodes and their alerts
      expect(cost.writeUnitsPerMessage).toBeLessThan(0.4);
    });
  }
});

/**
 * The producer stamps every message and sends two consecutive messages of a vehicle in one SendMessageBatch: each
 * batch of 10 carries five vehicles, so each vehicle's item is read once for its two messages.
 */
describe('DynamoDB units per message, batches of 10, stamped, two messages of a vehicle sent together', () => {
  const fleet = { ...FLEET, vehicleClock: 'exact', stamped: true } as const;
  let oneByOne: MessageCost;
  let grouped: MessageCost;
  beforeAll(async () => {
    // the same fleet and traffic, each run on its own emulators: sent one by one, then two of a vehicle together
    for (const [name, messagesPerVehicle] of [
      ['one-by-one', 1],
      ['grouped', 2],
    ] as const) {
      const emulators = await startTestEmulators(`pipeline-message-cost-${name}`);
      try {
        const cost = await measureMessageCost({ ...fleet, messagesPerVehicle });
        if (messagesPerVehicle === 1) oneByOne = cost;
        else grouped = cost;
      } finally {
        await emulators.stop();
      }
    }
  }, 600_000);

  it('evaluates every message, raises the planted alerts, and reads each item once per two messages', () => {
    expect(grouped.failures).toBe(0);
    expect(grouped.messages).toBe(COUNTED_MESSAGES);
    expect(grouped.invocations).toBe(COUNTED_MESSAGES / 10);
    expect(grouped.alerts).toBeGreaterThan(0);
    // one consistent read of an item under 4 KB for the vehicle's two messages
    expect(grouped.vehicleTableReadUnitsPerMessage).toBeCloseTo(0.5, 2);
    expect(oneByOne.vehicleTableReadUnitsPerMessage).toBeCloseTo(1, 2);
    expect(grouped.writeUnitsPerMessage).toBeLessThan(0.4);
    // units as DynamoDB bills them: besides the vehicle items, each alert's item in a transaction (2) and its three
    // index entries once each (DynamoDB Local reports those twice)
    for (const cost of [oneByOne, grouped]) {
      expect(cost.writeUnitsPerMessage - cost.vehicleTableWriteUnitsPerMessage).toBeCloseTo((cost.alerts / cost.messages) * 5, 6);
    }
  });

  it('raises exactly the alerts the messages sent one by one raise: grouping changes the cost, never the alerts', () => {
    expect(oneByOne.alertIds.length).toBeGreaterThan(0);
    expect(new Set(grouped.alertIds).size).toBe(grouped.alertIds.length);
    expect(grouped.alertIds).toEqual(oneByOne.alertIds);
  });

  it('measures the CPU time of each invocation within its wall time', () => {
    expect(grouped.cpuMsPerInvocation).toBeGreaterThan(0);
    expect(grouped.cpuMsPerInvocation).toBeLessThan(grouped.msPerInvocation);
  });
});

/** The worst-case tenant: its vehicles carry the largest item ordinary use makes, written with every message. */
describe('DynamoDB units per message, batches of 10, worst-case tenant', () => {
  let emulators: Emulators;
  let cost: MessageCost;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-message-cost-worst-case');
    cost = await measureMessageCost({ vehicles: 10, minutes: 15, warmUpMinutes: 5, vehicleClock: 'exact', tenant: 'worstCase' });
  }, 300_000);
  afterAll(async () => emulators.stop());

  it('builds vehicles with three owner levels, ten rules and two open visits, and writes each item with every message', async () => {
    expect(cost.failures).toBe(0);
    const items = (await scanTable(vehicleStateTable())).filter((item) => typeof item.version === 'number');
    expect(items).toHaveLength(10);
    for (const item of items) {
      expect(item.owners).toHaveLength(3);
      expect(Object.keys(item.ruleRefs as object)).toHaveLength(10);
      expect(Object.keys((unpackState(item[PACKED_STATE_ATTRIBUTE])?.visits as { zones: object }).zones)).toHaveLength(2);
    }
    // a write of the whole item, each started kilobyte a unit, with every message
    const largest = Math.max(...items.map((item) => itemBytes(marshall(item, { removeUndefinedValues: true }))));
    expect(cost.vehicleTableWriteUnitsPerMessage).toBeGreaterThanOrEqual(Math.ceil(largest / 1_024) * 0.9);
  });
});
