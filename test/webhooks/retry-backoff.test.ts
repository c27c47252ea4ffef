import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_RETRY_AFTER_SECONDS,
  RETRY_ATTEMPTS,
  RETRY_HORIZON_SECONDS,
  RETRY_WAITS_SECONDS,
  retryDelaySeconds,
  retryScheduleRanges,
  retryScheduleText,
} from '../../shared/delivery/retry-backoff';
import { afterPassingFailure, deferTarget, gaveUpReason, nextAttemptOf, wakeOf } from '../../shared/delivery/target-retry';

/** The one retry schedule of every channel, for any attempt and draw of the jitter. */
describe('the retry schedule', () => {
  const attempt = fc.integer({ min: 1, max: RETRY_ATTEMPTS - 1 });
  const draw = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

  it('waits about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h: 8 attempts over about 27 hours', () => {
    expect(RETRY_WAITS_SECONDS).toEqual([5, 300, 1_800, 7_200, 18_000, 36_000, 36_000]);
    expect(RETRY_ATTEMPTS).toBe(8);
    expect(RETRY_HORIZON_SECONDS / 3_600).toBeCloseTo(27.6, 1);
    expect(retryScheduleText()).toBe('5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h');
  });

  it('draws each wait within ±20% of its nominal value, in whole seconds, never under the floor', () => {
    fc.assert(
      fc.property(attempt, draw, (n, r) => {
        const delay = retryDelaySeconds(n, undefined, () => r)!;
        const { min, max } = retryScheduleRanges()[n - 1]!;
        expect(delay).toBeGreaterThanOrEqual(min);
        expect(delay).toBeLessThanOrEqual(max);
        expect(Number.isInteger(delay)).toBe(true);
      }),
    );
    expect(retryScheduleRanges()[0]).toEqual({ nominal: 5, min: 4, max: 6 });
    expect(retryDelaySeconds(3, undefined, () => 0)).toBe(1_440);
    expect(retryDelaySeconds(3, undefined, () => 0.999_999)).toBe(2_160);
  });

  it('comes back no sooner than a Retry-After, up to the longest wait', () => {
    fc.assert(
      fc.property(attempt, draw, fc.integer({ min: 1, max: 100_000 }), (n, r, asked) => {
        expect(retryDelaySeconds(n, asked, () => r)).toBeGreaterThanOrEqual(Math.min(asked, MAX_RETRY_AFTER_SECONDS));
      }),
    );
    expect(retryDelaySeconds(1, 120, () => 0.5)).toBe(120);
    expect(retryDelaySeconds(1, 10 * 86_400, () => 0.5)).toBe(MAX_RETRY_AFTER_SECONDS);
  });

  it('ends after the 8th attempt', () => {
    expect(retryDelaySeconds(RETRY_ATTEMPTS - 1, undefined, () => 0.5)).toBe(36_000);
    expect(retryDelaySeconds(RETRY_ATTEMPTS)).toBeUndefined();
    expect(afterPassingFailure(RETRY_ATTEMPTS, 'the endpoint answered 503', 0)).toBeNull();
    expect(gaveUpReason(8, 'the endpoint answered 503 (a server error on its side)')).toBe(
      'still failing after 8 attempts over about 27.6 h, the last of the retry schedule: the endpoint answered 503 (a server error on its side)',
    );
  });
});

describe("a target's place in the schedule", () => {
  const now = Date.parse('2026-03-01T10:00:00.000Z');

  it('records the attempt that failed and when the next is due', () => {
    const next = afterPassingFailure(2, 'Telegram 429: Too Many Requests', now, 600, () => 0.5)!;
    expect(next.delaySeconds).toBe(600);
    expect(next.record).toEqual({
      attempts: 2,
      error: 'Telegram 429: Too Many Requests',
      at: '2026-03-01T10:00:00.000Z',
      nextAttemptAt: '2026-03-01T10:10:00.000Z',
    });
    expect(nextAttemptOf(next.record)).toBe(now + 600_000);
    // a target that never failed, or a record written before records carried their next attempt, is due at once
    expect(nextAttemptOf(undefined)).toBe(0);
    expect(nextAttemptOf({ attempts: 1, error: 'x', at: '2026-03-01T09:00:00.000Z' })).toBe(0);
  });

  it('defers a target to a given time without counting an attempt, and wakes the alert at its earliest target', () => {
    const retries = {
      'webhook:a': { attempts: 3, error: 'the endpoint answered 503', at: '2026-03-01T09:00:00.000Z', nextAttemptAt: '2026-03-01T09:30:00.000Z' },
    };
    const until = now + 2 * 3_600_000;
    const deferred = deferTarget(retries, 'webhook:a', until, 'circuit open for hooks.example.com', now);
    expect(deferred).toEqual({
      outcome: 'retry',
      key: 'webhook:a',
      record: { attempts: 3, error: 'circuit open for hooks.example.com', at: '2026-03-01T10:00:00.000Z', nextAttemptAt: '2026-03-01T12:00:00.000Z' },
    });
    expect(deferTarget({}, 'email:x@example.com', until, 'circuit open', now)).toMatchObject({ record: { attempts: 0 } });
    expect(wakeOf([deferred, { outcome: 'waiting', key: 'telegram:1', nextAttemptAt: now + 60_000 }, { outcome: 'recorded' }])).toBe(now + 60_000);
    expect(wakeOf([deferred])).toBe(until);
    expect(wakeOf([{ outcome: 'recorded' }, { outcome: 'finished' }])).toBeUndefined();
  });
});
