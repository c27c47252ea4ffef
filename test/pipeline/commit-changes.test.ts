import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { commitChanges, type VehicleChange } from '../../shared/pipeline/commit-changes';
import { buildAlertItem } from '../../shared/store/alerts/alerts-store';
import { buildVisitItem, queryVisits } from '../../shared/store/visits-store';
import type { VehicleState } from '../../shared/schemas/vehicle-state';
import { loadVehicleState } from '../../shared/store/vehicle-state-store';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { countDynamoRequests } from '../support/count-requests';
import { alertsInTable, storedRule, T0 } from './support';

const rule = storedRule({ id: 7 });

function state(vehicleId: number, version: number, marker: string): VehicleState {
  return { vehicleId, version, lastDeviceTime: new Date(T0).toISOString(), lastSeenAt: T0, lastPosition: null, rules: { '7': { marker } } };
}

function alert(vehicleId: number, second: number) {
  const time = new Date(T0 + second * 1000).toISOString();
  return buildAlertItem(rule, vehicleId, { kind: 'speeding', time, latitude: 1, longitude: 2, speed: 100, values: {} }, T0);
}

async function storedState(vehicleId: number) {
  return (await loadVehicleState(vehicleId)).state;
}

const markerOf = (stored: VehicleState) => (stored.rules['7'] as { marker: string }).marker;

describe('committing vehicle changes', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-commit');
  });
  afterAll(async () => emulators.stop());

  it('packs several vehicles into one transaction', async () => {
    const counter = countDynamoRequests();
    try {
      const changes: VehicleChange[] = [1, 2, 3].map((vehicleId) => ({
        vehicleId,
        expectedVersion: 0,
        state: state(vehicleId, 0, 'first'),
        alerts: [alert(vehicleId, 1)],
      }));
      const result = await commitChanges(changes, async () => undefined);
      expect(result.failedVehicles.size).toBe(0);
      expect(result.created).toHaveLength(3);
      expect(counter.byCommand()).toEqual({ TransactWriteItems: 1 });
      expect(await storedState(2)).toMatchObject({ version: 1, rules: { '7': { marker: 'first' } } });
    } finally {
      counter.detach();
    }
  });

  it('two concurrent commits of one vehicle: one wins, the other is re-evaluated from the state it lost to', async () => {
    const vehicleId = 30;
    const reevaluatedFrom: number[] = [];
    const reevaluate = async (id: number): Promise<VehicleChange> => {
      const stored = (await storedState(id))!;
      reevaluatedFrom.push(stored.version);
      return {
        vehicleId: id,
        expectedVersion: stored.version,
        state: state(id, stored.version, `after ${markerOf(stored)}`),
        alerts: [alert(id, 20)],
      };
    };
    const change = (marker: string, second: number): VehicleChange => ({
      vehicleId,
      expectedVersion: 0,
      state: state(vehicleId, 0, marker),
      alerts: [alert(vehicleId, second)],
    });
    const [first, second] = await Promise.all([commitChanges([change('a', 10)], reevaluate), commitChanges([change('b', 11)], reevaluate)]);

    expect(first.failedVehicles.size + second.failedVehicles.size).toBe(0);
    expect(reevaluatedFrom).toEqual([1]);
    const stored = await storedState(vehicleId);
    expect(stored).toMatchObject({ version: 2 });
    expect(['after a', 'after b']).toContain(markerOf(stored!));
    const created = [...first.created, ...second.created].map((item) => item.alertId).sort();
    const winner = markerOf(stored!) === 'after a' ? 10 : 11;
    expect(created).toEqual([alert(vehicleId, winner), alert(vehicleId, 20)].map((item) => item.alertId).sort());
  });

  it('retries vehicles alone when their shared transaction is cancelled: duplicates dropped, moved states re-evaluated', async () => {
    // vehicle 11 moved on since the change was computed; vehicle 12 raises an alert that already exists
    await documentClient().send(new PutCommand({ TableName: resourcesConfig().VEHICLE_STATE_TABLE, Item: state(11, 4, 'concurrent') }));
    const existing = alert(12, 5);
    await documentClient().send(new PutCommand({ TableName: resourcesConfig().ALERTS_TABLE, Item: existing }));

    const reevaluated: number[] = [];
    const changes: VehicleChange[] = [
      { vehicleId: 10, expectedVersion: 0, state: state(10, 0, 'ok'), alerts: [alert(10, 5)] },
      { vehicleId: 11, expectedVersion: 3, state: state(11, 3, 'computed from version 3'), alerts: [alert(11, 5)] },
      { vehicleId: 12, expectedVersion: 0, state: state(12, 0, 'ok'), alerts: [existing, alert(12, 6)] },
    ];
    const result = await commitChanges(changes, async (vehicleId) => {
      reevaluated.push(vehicleId);
      return { vehicleId, expectedVersion: 4, state: state(vehicleId, 4, 'recomputed from version 4'), alerts: [alert(vehicleId, 5)] };
    });

    expect(result.failedVehicles.size).toBe(0);
    expect(reevaluated).toEqual([11]);
    expect(result.created.map((created) => created.alertId).sort()).toEqual(
      [alert(10, 5), alert(11, 5), alert(12, 6)].map((created) => created.alertId).sort(),
    );
    expect(await storedState(10)).toMatchObject({ version: 1 });
    expect(await storedState(11)).toMatchObject({ version: 5, rules: { '7': { marker: 'recomputed from version 4' } } });
    expect(await storedState(12)).toMatchObject({ version: 1 });
    const stored = (await alertsInTable()).filter((item) => [10, 11, 12].includes(Number(item.vehicleId)));
    expect(stored).toHaveLength(4);
  });

  it('writes a state without alerts with one conditional PutItem, guarded by the version like a transaction', async () => {
    const counter = countDynamoRequests();
    try {
      const first = await commitChanges([{ vehicleId: 40, expectedVersion: 0, state: state(40, 0, 'first'), alerts: [] }], async () => undefined);
      expect(first.failedVehicles.size).toBe(0);
      expect(counter.byCommand()).toEqual({ PutItem: 1 });
      // computed from a version that is no longer stored: recomputed, never written over the newer state
      const reevaluated: number[] = [];
      const stale = await commitChanges([{ vehicleId: 40, expectedVersion: 0, state: state(40, 0, 'stale'), alerts: [] }], async (vehicleId) => {
        reevaluated.push(vehicleId);
        return undefined;
      });
      expect(stale.failedVehicles.size).toBe(0);
      expect(reevaluated).toEqual([40]);
      expect(await storedState(40)).toMatchObject({ version: 1, rules: { '7': { marker: 'first' } } });
    } finally {
      counter.detach();
    }
  });

  it('reports a vehicle whose change cannot be committed, without holding back the others', async () => {
    // random, so that packing the state cannot bring it under DynamoDB's 400 KB
    const oversized = randomBytes(600_000).toString('base64');
    const changes: VehicleChange[] = [
      { vehicleId: 20, expectedVersion: 0, state: state(20, 0, oversized), alerts: [] },
      { vehicleId: 21, expectedVersion: 0, state: state(21, 0, 'ok'), alerts: [] },
    ];
    const result = await commitChanges(changes, async () => undefined);
    expect([...result.failedVehicles.keys()]).toEqual([20]);
    expect(await storedState(21)).toMatchObject({ version: 1 });
    expect(await storedState(20)).toBeUndefined();
  });

  describe('with geozone visits', () => {
    const visit = (vehicleId: number, second: number, zoneId = 9) =>
      buildVisitItem(vehicleId, { zoneId, startDate: new Date(T0 + second * 1000).toISOString(), entry: { latitude: 1, longitude: 2 } }, T0);
    const visitsOf = (vehicleId: number) => queryVisits({ kind: 'vehicle', vehicleId }, '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z');

    it('writes visits in one transaction with the state, and not at all when the state version moved', async () => {
      const counter = countDynamoRequests();
      try {
        const first = await commitChanges(
          [{ vehicleId: 50, expectedVersion: 0, state: state(50, 0, 'in'), alerts: [], visits: [visit(50, 1)] }],
          async () => undefined,
        );
        expect(first.failedVehicles.size).toBe(0);
        expect(counter.byCommand()).toEqual({ TransactWriteItems: 1 });
      } finally {
        counter.detach();
      }
      expect((await visitsOf(50)).map((item) => item.visitKey)).toEqual([visit(50, 1).visitKey]);

      // computed from version 0, but version 1 is stored: the re-evaluation finds nothing to write, nor does the visit
      const stale = await commitChanges(
        [{ vehicleId: 50, expectedVersion: 0, state: state(50, 0, 'again'), alerts: [], visits: [visit(50, 5)] }],
        async () => undefined,
      );
      expect(stale.failedVehicles.size).toBe(0);
      expect((await visitsOf(50)).map((item) => item.visitKey)).toEqual([visit(50, 1).visitKey]);
    });

    it('keeps visits with the state when many alerts need several transactions, and never writes them twice', async () => {
      const alerts = Array.from({ length: 120 }, (_, index) => alert(51, index + 1));
      const counter = countDynamoRequests();
      try {
        const result = await commitChanges(
          [{ vehicleId: 51, expectedVersion: 0, state: state(51, 0, 'many'), alerts, visits: [visit(51, 1), visit(51, 2, 10)] }],
          async () => undefined,
        );
        expect(result.failedVehicles.size).toBe(0);
        expect(result.created).toHaveLength(120);
        expect(counter.byCommand()).toEqual({ TransactWriteItems: 2 });
        // the visits ride with the state in the first transaction; the one with the remaining alerts carries none
        expect(counter.forTable(resourcesConfig().VISITS_TABLE)).toBe(1);
      } finally {
        counter.detach();
      }
      expect(await visitsOf(51)).toHaveLength(2);
      expect((await storedState(51))?.version).toBe(1);
    });
  });
});
