import { describe, expect, it } from 'vitest';
import {
  countsAsFailure,
  decideCircuit,
  disableCutoff,
  FAILURES_TO_OPEN,
  heldReason,
  HOLD_RECHECK_MS,
  isOpen,
  opensNow,
  PROBE_INTERVAL_MS,
  probeFailedReason,
  probeSlotFreeBefore,
  SUCCESS_REFRESH_MS,
  successChangesHealth,
} from '../../shared/delivery/circuit-breaker';
import { RETRY_HORIZON_SECONDS, RETRY_WAITS_SECONDS } from '../../shared/delivery/retry-backoff';
import { deferTarget, holdDeadline, wakeOf } from '../../shared/delivery/target-retry';
import { NO_HEALTH, type CircuitHealth } from '../../shared/schemas/circuit-health';
import { DELIVERY_T0 as T0 } from '../support/fixtures';

const iso = (ms: number) => new Date(ms).toISOString();
const health = (fields: Partial<CircuitHealth>): CircuitHealth => ({ ...NO_HEALTH, ...fields });
/** Open since T0, after the failures that made the count. */
const open = health({ consecutiveFailures: FAILURES_TO_OPEN, lastFailureAt: iso(T0), openSince: iso(T0), lastError: 'the endpoint answered 503' });

describe('circuit breaker decision', () => {
  it('sends while closed, below the count of failures in a row', () => {
    expect(decideCircuit(NO_HEALTH, T0)).toBe('send');
    expect(decideCircuit(health({ consecutiveFailures: FAILURES_TO_OPEN - 1, lastFailureAt: iso(T0) }), T0)).toBe('send');
    expect(isOpen(health({ consecutiveFailures: FAILURES_TO_OPEN - 1 }))).toBe(false);
  });

  it('holds once open, and lets one probe through an interval after it opened, then an interval after each probe', () => {
    expect(decideCircuit(open, T0)).toBe('hold');
    expect(decideCircuit(open, T0 + PROBE_INTERVAL_MS - 1)).toBe('hold');
    expect(decideCircuit(open, T0 + PROBE_INTERVAL_MS)).toBe('probe');
    const probed = { ...open, lastProbeAt: iso(T0 + PROBE_INTERVAL_MS) };
    expect(decideCircuit(probed, T0 + PROBE_INTERVAL_MS + 1)).toBe('hold');
    expect(decideCircuit(probed, T0 + 2 * PROBE_INTERVAL_MS)).toBe('probe');
  });

  it('counts as open from the failure that made the count, before openSince is written', () => {
    const counted = health({ consecutiveFailures: FAILURES_TO_OPEN, lastFailureAt: iso(T0) });
    expect(isOpen(counted)).toBe(true);
    expect(opensNow(counted)).toBe(true);
    expect(opensNow(open)).toBe(false);
    expect(decideCircuit(counted, T0 + 1)).toBe('hold');
    expect(decideCircuit(counted, T0 + PROBE_INTERVAL_MS)).toBe('probe');
  });

  it('claims the probe slot only when nobody took it within the last interval', () => {
    expect(probeSlotFreeBefore(T0 + PROBE_INTERVAL_MS)).toBe(iso(T0));
  });

  it('counts transient failures only, and not an e-mail refused over the daily quota', () => {
    expect(countsAsFailure({ status: 'retry', error: 'the endpoint answered 503' })).toBe(true);
    expect(countsAsFailure({ status: 'retry', error: 'Daily message quota exceeded', overQuota: true })).toBe(false);
    expect(countsAsFailure({ status: 'failed', error: 'the endpoint answered 422' })).toBe(false);
    expect(countsAsFailure({ status: 'sent' })).toBe(false);
  });

  it('writes a success only when it changes something: a count, an open circuit, a lastSuccessAt older than an hour', () => {
    const healthy = health({ lastSuccessAt: iso(T0) });
    expect(successChangesHealth(healthy, T0 + SUCCESS_REFRESH_MS - 1)).toBe(false);
    expect(successChangesHealth(healthy, T0 + SUCCESS_REFRESH_MS)).toBe(true);
    expect(successChangesHealth(NO_HEALTH, T0)).toBe(true);
    expect(successChangesHealth({ ...healthy, consecutiveFailures: 1 }, T0 + 1)).toBe(true);
    expect(successChangesHealth({ ...open, lastSuccessAt: iso(T0) }, T0 + 1)).toBe(true);
  });

  it('says why a target was held, or held again after its probe failed, naming the destination and never more', () => {
    expect(heldReason('webhook#abc', open)).toBe(
      `not attempted: the circuit of webhook#abc is open since ${iso(T0)} after ${FAILURES_TO_OPEN} failures in a row; last error: the endpoint answered 503`,
    );
    expect(probeFailedReason('telegram', 'network: connection refused')).toBe(
      'sent as the probe of the open circuit of telegram, which failed: network: connection refused',
    );
  });

  it('defers a held target without spending an attempt, until the drain or the recheck, never past the horizon', () => {
    const retries = { 'webhook:abc': { attempts: 3, error: 'the endpoint answered 503', at: iso(T0), nextAttemptAt: iso(T0 + 1_000) } };
    const held = deferTarget(retries, 'webhook:abc', T0 + HOLD_RECHECK_MS, 'not attempted', T0, 'webhook#abc');
    expect(held).toEqual({
      outcome: 'retry',
      key: 'webhook:abc',
      record: { attempts: 3, error: 'not attempted', at: iso(T0), nextAttemptAt: iso(T0 + HOLD_RECHECK_MS), heldBy: 'webhook#abc' },
    });
    expect(wakeOf([held])).toBe(T0 + HOLD_RECHECK_MS);
    // a target never attempted before keeps 0 attempts
    expect(deferTarget({}, 'telegram:1', T0 + 1, 'not attempted', T0, 'telegram')).toMatchObject({ record: { attempts: 0, heldBy: 'telegram' } });
    // as long as the retry schedule would have kept it, from when its alert was raised; rechecked at its longest wait
    expect(holdDeadline(iso(T0))).toBe(T0 + RETRY_HORIZON_SECONDS * 1000);
    expect(HOLD_RECHECK_MS).toBe(Math.max(...RETRY_WAITS_SECONDS) * 1000);
  });

  it('disables endpoints open since 5 days before now', () => {
    expect(disableCutoff(Date.parse('2026-03-06T10:00:00.000Z'))).toBe('2026-03-01T10:00:00.000Z');
  });
});
