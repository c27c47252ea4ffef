import { describe, expect, it } from 'vitest';
import { connectionLossEvaluator } from '../../shared/rules/connection-loss';
import type { VehicleClock } from '../../shared/rules/types';
import { T0, message } from './fixtures';
import { compile, context } from './harness';

const MIN = 60_000;
const clock = (lastSeenAt: number | null): VehicleClock => ({
  vehicleId: 1,
  lastSeenAt,
  lastDeviceTime: lastSeenAt === null ? null : new Date(lastSeenAt - 1000).toISOString(),
});

describe('connection loss', () => {
  const rule = compile(connectionLossEvaluator, { minutes: '30' });
  const tick = (state: Parameters<NonNullable<typeof connectionLossEvaluator.tick>>[1], seen: number | null, now: number) =>
    connectionLossEvaluator.tick!(rule, state, clock(seen), context([], now));

  it('has documented defaults', () => {
    expect(connectionLossEvaluator.settingsSchema.parse({})).toEqual({ minutes: 30, notifyRestored: false });
  });

  it('raises nothing before the silence is long enough', () => {
    expect(tick(undefined, T0, T0 + 29 * MIN)).toEqual({ state: undefined, events: [] });
  });

  it('reports a loss once, timed by the silence rather than by the sweep', () => {
    const first = tick(undefined, T0, T0 + 31 * MIN);
    expect(first.events).toEqual([expect.objectContaining({ kind: 'connectionLost', time: new Date(T0 + 30 * MIN).toISOString(), latitude: null })]);
    expect(first.events[0]!.values).toMatchObject({ minutes: 30, lastSeenAt: new Date(T0).toISOString() });
    const later = tick(JSON.parse(JSON.stringify(first.state)), T0, T0 + 90 * MIN);
    expect(later.events).toEqual([]);
    // a sweep that ran twice for the same minute, from scratch, raises the identical event
    expect(tick(undefined, T0, T0 + 32 * MIN).events).toEqual(first.events);
  });

  it('reports a new silence after the vehicle was heard again', () => {
    const lost = tick(undefined, T0, T0 + 31 * MIN).state;
    const restored = connectionLossEvaluator.evaluate(rule, lost, message(40 * 60), context()).state;
    expect(restored).toBeUndefined();
    expect(tick(restored, T0 + 40 * MIN, T0 + 71 * MIN).events).toHaveLength(1);
    // even if the message itself was never evaluated by this rule
    expect(tick(lost, T0 + 40 * MIN, T0 + 71 * MIN).events).toHaveLength(1);
  });

  it('raises nothing for a vehicle never heard from', () => {
    expect(tick(undefined, null, T0 + 1000 * MIN).events).toEqual([]);
  });

  it('optionally reports the restored connection', () => {
    const notify = compile(connectionLossEvaluator, { minutes: '30', notifyRestored: 'true' });
    const lost = connectionLossEvaluator.tick!(notify, undefined, clock(T0), context([], T0 + 31 * MIN)).state;
    const back = connectionLossEvaluator.evaluate(notify, lost, message(45 * 60), context());
    expect(back.events).toEqual([expect.objectContaining({ kind: 'connectionRestored', values: expect.objectContaining({ silentMinutes: 45 }) })]);
    expect(connectionLossEvaluator.evaluate(notify, back.state, message(46 * 60), context()).events).toEqual([]);
    expect(connectionLossEvaluator.evaluate(rule, lost, message(45 * 60), context()).events).toEqual([]);
  });
});
