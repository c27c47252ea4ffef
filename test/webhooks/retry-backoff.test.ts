import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_DELAY_SECONDS, retryCeilingSeconds, webhookRetryDelaySeconds } from '../../shared/delivery/retry-backoff';

/** The retry schedule's bounds, for any attempt count, base and draw of the jitter. */
describe('webhook retry backoff', () => {
  const attempts = fc.integer({ min: 1, max: 200 });
  const base = fc.integer({ min: 1, max: 600 });
  const draw = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

  it('stays within [ceiling/2, ceiling] and never above the cap', () => {
    fc.assert(
      fc.property(attempts, base, draw, (n, b, r) => {
        const delay = webhookRetryDelaySeconds(n, b, () => r)!;
        const ceiling = retryCeilingSeconds(n, b);
        expect(delay).toBeGreaterThanOrEqual(Math.max(1, Math.floor(ceiling / 2)));
        expect(delay).toBeLessThanOrEqual(Math.max(1, Math.ceil(ceiling)));
        expect(delay).toBeLessThanOrEqual(MAX_DELAY_SECONDS);
        expect(Number.isInteger(delay)).toBe(true);
      }),
    );
  });

  it('has a ceiling that never shrinks from one attempt to the next', () => {
    fc.assert(fc.property(attempts, base, (n, b) => retryCeilingSeconds(n + 1, b) >= retryCeilingSeconds(n, b)));
  });

  it('spreads retries: two draws of the same attempt differ by up to half the ceiling', () => {
    expect(webhookRetryDelaySeconds(4, 30, () => 0)).toBe(120);
    expect(webhookRetryDelaySeconds(4, 30, () => 0.999_999)).toBe(240);
  });
});
