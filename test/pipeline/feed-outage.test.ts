import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { FeedOutageConfig } from '../../shared/config';
import { clientCohorts, clientInterrupted, isHeld, outageChanges, platformInterrupted, type SilentVehicle } from '../../shared/sweep/feed-outage';
import { readFeedRate } from '../../shared/sweep/feed-rate';
import { PLATFORM_SCOPE, type FeedOutage } from '../../shared/store/feed-outages';

// CloudWatch has no local emulator: the metric read is replaced by a stub in the reader's test below.
const metric = vi.hoisted(() => ({ metricMinuteSums: vi.fn<(query: unknown) => Promise<{ at: number; value: number }[]>>() }));
vi.mock('../../shared/aws/cloudwatch', () => metric);

const CONFIG: FeedOutageConfig = { FEED_OUTAGE_SHARE: 0.5, FEED_OUTAGE_MIN_VEHICLES: 10, FEED_OUTAGE_GRACE_MINUTES: 5 };
const OFF: FeedOutageConfig = { ...CONFIG, FEED_OUTAGE_SHARE: 0 };
const NOW = Date.parse('2026-11-26T12:00:00Z');
const MINUTE = 60_000;

const silent = (count: number, owner: string | null, from = 1): SilentVehicle[] =>
  Array.from({ length: count }, (_, index) => ({ vehicleId: from + index, silentAt: NOW, owner }));

describe('interrupted feed: the platform', () => {
  const measured = (lastMinute: number, busiestMinute: number) => ({ kind: 'measured', lastMinute, busiestMinute }) as const;

  it('is interrupted when many vehicles fall silent while the input rate fell by the share', () => {
    expect(platformInterrupted(10, measured(0, 1_200), false, CONFIG)).toBe(true);
    expect(platformInterrupted(10, measured(600, 1_200), false, CONFIG)).toBe(true);
    // a feed silent for the whole window reads 0 as its busiest minute too
    expect(platformInterrupted(10, measured(0, 0), true, CONFIG)).toBe(true);
  });

  it('is not while messages still arrive, or while fewer than the minimum fall silent', () => {
    expect(platformInterrupted(500, measured(601, 1_200), false, CONFIG)).toBe(false);
    expect(platformInterrupted(9, measured(0, 1_200), false, CONFIG)).toBe(false);
  });

  it('keeps an outage while the rate cannot be read, never starts one then, and knows none without a queue or with the hold off', () => {
    const unavailable = { kind: 'unavailable', reason: 'Throttling' } as const;
    expect(platformInterrupted(0, unavailable, true, CONFIG)).toBe(true);
    expect(platformInterrupted(500, unavailable, false, CONFIG)).toBe(false);
    expect(platformInterrupted(500, { kind: 'unmonitored' }, false, CONFIG)).toBe(false);
    expect(platformInterrupted(500, measured(0, 1_200), false, OFF)).toBe(false);
  });
});

describe('interrupted feed: one client', () => {
  it("counts only clients with the minimum in the cohort, and takes the share of the client's vehicles", () => {
    const cohort = [...silent(12, 'a'), ...silent(9, 'b', 100), ...silent(30, null, 200)];
    expect(clientCohorts(cohort, CONFIG)).toEqual(new Map([['a', 12]]));
    expect(clientInterrupted(12, 24, CONFIG)).toBe(true);
    expect(clientInterrupted(12, 25, CONFIG)).toBe(false);
    expect(clientInterrupted(9, 9, CONFIG)).toBe(false);
    expect(clientInterrupted(12, 12, OFF)).toBe(false);
  });
});

describe('interrupted feed: what the outages become', () => {
  const outage = (scope: string, seenAt: number): FeedOutage => ({ scope, since: seenAt - 10 * MINUTE, seenAt, vehicles: 0 });

  it('begins an outage seen for the first time, and marks one seen again', () => {
    const changes = outageChanges(
      [outage('a', NOW - MINUTE)],
      new Map([
        [PLATFORM_SCOPE, 0],
        ['a', 40],
      ]),
      NOW,
      5 * MINUTE,
    );
    expect(changes.begin).toEqual([{ scope: PLATFORM_SCOPE, since: NOW, seenAt: NOW, vehicles: 0 }]);
    expect(changes.seen).toEqual(['a']);
    expect(changes.end).toEqual([]);
    expect([...changes.holding].sort()).toEqual(['a', PLATFORM_SCOPE]);
  });

  it('holds an outage no longer seen for the grace period, then ends it', () => {
    const stored = [outage('a', NOW - 4 * MINUTE), outage('b', NOW - 5 * MINUTE)];
    const changes = outageChanges(stored, new Map(), NOW, 5 * MINUTE);
    expect(changes.begin).toEqual([]);
    expect(changes.end).toEqual([stored[1]]);
    expect([...changes.holding]).toEqual(['a']);
  });

  it("holds every vehicle under the platform's outage, a client's own under the client's", () => {
    const [ofA, ofB, unowned] = [...silent(1, 'a'), ...silent(1, 'b', 2), ...silent(1, null, 3)];
    expect([ofA, ofB, unowned].map((vehicle) => isHeld(vehicle!, new Set([PLATFORM_SCOPE])))).toEqual([true, true, true]);
    expect([ofA, ofB, unowned].map((vehicle) => isHeld(vehicle!, new Set(['a'])))).toEqual([true, false, false]);
    expect(isHeld(ofA!, new Set())).toBe(false);
  });
});

describe('interrupted feed: the input rate', () => {
  beforeEach(() => metric.metricMinuteSums.mockReset());

  it("reads the input queue's NumberOfMessagesSent per minute: the newest minute and the busiest", async () => {
    metric.metricMinuteSums.mockResolvedValue([
      { at: NOW - 3 * MINUTE, value: 900 },
      { at: NOW - 2 * MINUTE, value: 1_200 },
      { at: NOW - MINUTE, value: 3 },
    ]);
    expect(await readFeedRate(NOW, 'fleetwatch-input.fifo')).toEqual({ kind: 'measured', lastMinute: 3, busiestMinute: 1_200 });
    expect(metric.metricMinuteSums).toHaveBeenCalledWith(
      expect.objectContaining({
        namespace: 'AWS/SQS',
        metricName: 'NumberOfMessagesSent',
        dimensions: [{ Name: 'QueueName', Value: 'fleetwatch-input.fifo' }],
      }),
    );
  });

  it('is unavailable when CloudWatch has no datapoint or fails, and unmonitored without a queue name', async () => {
    metric.metricMinuteSums.mockResolvedValueOnce([]);
    expect((await readFeedRate(NOW, 'q.fifo')).kind).toBe('unavailable');
    metric.metricMinuteSums.mockRejectedValueOnce(new Error('Throttling'));
    expect(await readFeedRate(NOW, 'q.fifo')).toEqual({ kind: 'unavailable', reason: expect.stringContaining('Throttling') });
    expect(await readFeedRate(NOW, '')).toEqual({ kind: 'unmonitored' });
    expect(metric.metricMinuteSums).toHaveBeenCalledTimes(2);
  });
});
