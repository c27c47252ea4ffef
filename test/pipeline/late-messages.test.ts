import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { MAX_HEARTBEAT_INTERVAL_MS } from '../../shared/pipeline/silence-deadline';
import { RuleCache } from '../../shared/pipeline/rule-cache';
import { loadVehicleState, type LoadedState } from '../../shared/store/vehicle-state-store';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { countCapacity } from '../support/count-capacity';
import { alertsInTable, drainQueue, invoke, putRule, sqsRecord, storedRule, T0, terminalMessage } from './support';

/**
 * A message at or before the vehicle's newest evaluated device time is late (README principle 5): it moves no
 * clock, rolls no rule back and raises nothing but what a stale-aware rule (panic) allows. With the exact
 * vehicle clock (the default) every message that moves the clock is written, so the judgment is the same
 * whether or not a heartbeat would have been due; the coalesced clock (opt-in) writes a heartbeat every
 * 10 minutes here (no connection-loss rule), and shows the window it leaves.
 */
describe('late messages', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-late-messages');
    await putRule(
      storedRule({
        id: 71,
        name: 'Speeding at once',
        vehicleIds: [701, 702, 703, 704, 705, 706, 707, 708, 709],
        settings: { limit: '90', minDuration: '0' },
      }),
    );
  });
  afterAll(async () => emulators.stop());

  const lastDeviceTime = async (vehicleId: number) => (await loadVehicleState(vehicleId)).state?.lastDeviceTime;

  it('raises nothing from a message older than a heartbeat the coalesced clock wrote, and keeps the clock', async () => {
    const vehicleId = 701;
    const newer = MAX_HEARTBEAT_INTERVAL_MS / 1000 + 10;
    const at = (second: number) => T0 + second * 1000 + 500;
    await invoke(createEvaluateHandler({ clock: () => at(0), vehicleClock: 'coalesced' }), [sqsRecord(terminalMessage(vehicleId, 0, 50))]);
    await invoke(createEvaluateHandler({ clock: () => at(newer), vehicleClock: 'coalesced' }), [sqsRecord(terminalMessage(vehicleId, newer, 50))]);
    expect(await lastDeviceTime(vehicleId)).toBe(new Date(T0 + newer * 1000).toISOString());
    // the late message would be an episode above the limit if it were current
    await invoke(createEvaluateHandler({ clock: () => at(newer + 5), vehicleClock: 'coalesced' }), [
      sqsRecord(terminalMessage(vehicleId, newer - 5, 150)),
    ]);
    expect((await alertsInTable()).filter((alert) => alert.vehicleId === vehicleId)).toEqual([]);
    expect(await lastDeviceTime(vehicleId)).toBe(new Date(T0 + newer * 1000).toISOString());
    expect(await drainQueue(emulators.queues.deliveries)).toEqual([]);
  });

  const alertsOf = async (vehicleId: number) => (await alertsInTable()).filter((alert) => alert.vehicleId === vehicleId);

  it('judges a late message against the newest message evaluated, even one that changed no rule state (exact clock)', async () => {
    const vehicleId = 702;
    const at = (second: number) => T0 + second * 1000 + 500;
    const evaluateAt = (second: number) => createEvaluateHandler({ clock: () => at(second) });
    await invoke(evaluateAt(0), [sqsRecord(terminalMessage(vehicleId, 0, 50))]);
    // 30 s later, below the limit: no rule state moves, and no heartbeat would be due for 10 minutes
    await invoke(evaluateAt(30), [sqsRecord(terminalMessage(vehicleId, 30, 50))]);
    expect(await lastDeviceTime(vehicleId)).toBe(new Date(T0 + 30_000).toISOString());
    // a reading from between the two arrives late: current, it would be an episode above the limit
    await invoke(evaluateAt(35), [sqsRecord(terminalMessage(vehicleId, 20, 150))]);
    expect(await alertsOf(vehicleId)).toEqual([]);
    expect(await lastDeviceTime(vehicleId)).toBe(new Date(T0 + 30_000).toISOString());
    // the vehicle then really speeds: that is current, and raised
    await invoke(evaluateAt(41), [sqsRecord(terminalMessage(vehicleId, 40, 150))]);
    expect((await alertsOf(vehicleId)).map((alert) => (alert.event as { time: string }).time)).toEqual([new Date(T0 + 40_000).toISOString()]);
    expect(await drainQueue(emulators.queues.deliveries)).toHaveLength(1);
  });

  it('leaves the documented window with the coalesced clock: the same late reading counts as current there', async () => {
    const vehicleId = 703;
    const at = (second: number) => T0 + second * 1000 + 500;
    const evaluateAt = (second: number) => createEvaluateHandler({ clock: () => at(second), vehicleClock: 'coalesced' });
    await invoke(evaluateAt(0), [sqsRecord(terminalMessage(vehicleId, 0, 50))]);
    await invoke(evaluateAt(30), [sqsRecord(terminalMessage(vehicleId, 30, 50))]);
    expect(await lastDeviceTime(vehicleId)).toBe(new Date(T0).toISOString());
    await invoke(evaluateAt(35), [sqsRecord(terminalMessage(vehicleId, 20, 150))]);
    expect((await alertsOf(vehicleId)).map((alert) => (alert.event as { time: string }).time)).toEqual([new Date(T0 + 20_000).toISOString()]);
    await drainQueue(emulators.queues.deliveries);
  });

  it('catches a read that missed the newest write (the exact clock reads eventually consistent): the commit fails and the vehicle is judged again', async () => {
    const vehicleId = 704;
    const at = (second: number) => T0 + second * 1000 + 500;
    await invoke(createEvaluateHandler({ clock: () => at(0) }), [sqsRecord(terminalMessage(vehicleId, 0, 50))]);
    // DynamoDB Local always answers the newest item, so the newer write lands between this invocation's read
    // and its commit, as it would behind a stale read: another invocation stores the 30 s message meanwhile
    let interleaved = false;
    class InterleavingRuleCache extends RuleCache {
      override async resolve(vehicles: ReadonlyMap<number, LoadedState>, now: number, options: { journal?: boolean } = {}) {
        if (!interleaved) {
          interleaved = true;
          await invoke(createEvaluateHandler({ clock: () => at(30) }), [sqsRecord(terminalMessage(vehicleId, 30, 50))]);
        }
        return super.resolve(vehicles, now, options);
      }
    }
    const outcome = await invoke(createEvaluateHandler({ clock: () => at(35), rules: new InterleavingRuleCache() }), [
      sqsRecord(terminalMessage(vehicleId, 20, 150)),
    ]);
    expect(interleaved).toBe(true);
    expect(outcome).toEqual({ batchItemFailures: [] });
    // evaluated against the item it read, the 20 s reading was current and above the limit; against the
    // newest it is late
    expect(await alertsOf(vehicleId)).toEqual([]);
    expect(await lastDeviceTime(vehicleId)).toBe(new Date(T0 + 30_000).toISOString());
  });

  /** A message stamped by its producer with the newest device time it sent before (`previousDeviceTime`). */
  const stamped = (vehicleId: number, second: number, speed: number, previous: number) =>
    sqsRecord(terminalMessage(vehicleId, second, speed, { previousDeviceTime: new Date(T0 + previous * 1000).toISOString() }));
  /** Invokes evaluate on the records and answers the items it wrote. */
  const writes = async (handler: ReturnType<typeof createEvaluateHandler>, records: ReturnType<typeof sqsRecord>[]) => {
    const capacity = countCapacity();
    try {
      expect(await invoke(handler, records)).toEqual({ batchItemFailures: [] });
      return capacity.itemsWritten();
    } finally {
      capacity.detach();
    }
  };

  it.each([
    { clock: 'coalesced' as const, vehicleId: 705 },
    { clock: 'exact' as const, vehicleId: 706 },
  ])('judges a stamped late message late with no write per message, $clock clock configured', async ({ clock, vehicleId }) => {
    const at = (second: number) => T0 + second * 1000 + 500;
    const evaluateAt = (second: number) => createEvaluateHandler({ clock: () => at(second), vehicleClock: clock });
    // the producer's first message has nothing before it to stamp
    expect(await writes(evaluateAt(0), [sqsRecord(terminalMessage(vehicleId, 0, 50))])).toBe(1);
    // the first stamped message: under the exact clock its state is written once more, marked stamped
    expect(await writes(evaluateAt(30), [stamped(vehicleId, 30, 50, 0)])).toBe(clock === 'exact' ? 1 : 0);
    expect(await writes(evaluateAt(60), [stamped(vehicleId, 60, 50, 30)])).toBe(0);
    expect(await lastDeviceTime(vehicleId)).toBe(new Date(T0 + (clock === 'exact' ? 30_000 : 0)).toISOString());
    // the 703 reading again: newer than the stored clock, above the limit, but sent after the 60 s message
    expect(await writes(evaluateAt(65), [stamped(vehicleId, 50, 150, 60)])).toBe(0);
    expect(await alertsOf(vehicleId)).toEqual([]);
    // the vehicle then really speeds: that is current, raised and written
    expect(await writes(evaluateAt(71), [stamped(vehicleId, 70, 150, 60)])).toBe(2);
    expect((await alertsOf(vehicleId)).map((alert) => (alert.event as { time: string }).time)).toEqual([new Date(T0 + 70_000).toISOString()]);
    expect(await drainQueue(emulators.queues.deliveries)).toHaveLength(1);
  });

  it('raises one alert for stamped messages duplicated, reordered in a batch and redelivered', async () => {
    const vehicleId = 707;
    const at = (second: number) => T0 + second * 1000 + 500;
    const evaluateAt = (second: number) => createEvaluateHandler({ clock: () => at(second) });
    await invoke(evaluateAt(0), [sqsRecord(terminalMessage(vehicleId, 0, 50))]);
    await invoke(evaluateAt(30), [stamped(vehicleId, 30, 50, 0)]);
    const speeding = terminalMessage(vehicleId, 40, 150, { previousDeviceTime: new Date(T0 + 30_000).toISOString() });
    // in the order sent: 40 s, 45 s, 40 s again, and a 35 s reading sent after them (late, though first in device time)
    const batch = [sqsRecord(speeding), stamped(vehicleId, 45, 150, 40), sqsRecord(speeding), stamped(vehicleId, 35, 150, 45)];
    await invoke(evaluateAt(46), batch);
    // the same records again, as SQS redelivers them after a lost acknowledgement, and the late one once more later
    await invoke(evaluateAt(50), batch);
    await invoke(evaluateAt(60), [batch[3]!]);
    expect((await alertsOf(vehicleId)).map((alert) => (alert.event as { time: string }).time)).toEqual([new Date(T0 + 40_000).toISOString()]);
    expect(await drainQueue(emulators.queues.deliveries)).toHaveLength(1);
  });

  it('judges a mixed fleet exactly in one batch: stamped vehicles written with heartbeats, the others with every message', async () => {
    const [stampedVehicle, plainVehicle] = [708, 709];
    const at = (second: number) => T0 + second * 1000 + 500;
    const evaluateAt = (second: number) => createEvaluateHandler({ clock: () => at(second) });
    await invoke(evaluateAt(0), [sqsRecord(terminalMessage(stampedVehicle, 0, 50)), sqsRecord(terminalMessage(plainVehicle, 0, 50))]);
    await invoke(evaluateAt(30), [stamped(stampedVehicle, 30, 50, 0), sqsRecord(terminalMessage(plainVehicle, 30, 50))]);
    // only the unstamped vehicle's item is written for its message
    expect(await writes(evaluateAt(60), [stamped(stampedVehicle, 60, 50, 30), sqsRecord(terminalMessage(plainVehicle, 60, 50))])).toBe(1);
    expect(await lastDeviceTime(stampedVehicle)).toBe(new Date(T0 + 30_000).toISOString());
    expect(await lastDeviceTime(plainVehicle)).toBe(new Date(T0 + 60_000).toISOString());
    // late readings of both, above the limit: each judged late, by its stamp or by the exact stored clock
    expect(await writes(evaluateAt(65), [stamped(stampedVehicle, 50, 150, 60), sqsRecord(terminalMessage(plainVehicle, 50, 150))])).toBe(0);
    expect(await alertsOf(stampedVehicle)).toEqual([]);
    expect(await alertsOf(plainVehicle)).toEqual([]);
    expect(await drainQueue(emulators.queues.deliveries)).toEqual([]);
  });
});
