import { describe, expect, it } from 'vitest';
import {
  countsAsFailure,
  decideCircuit,
  disableCutoff,
  FAILURES_TO_OPEN,
  heldOutcome,
  isOpen,
  opensNow,
  PROBE_INTERVAL_MS,
  probeSlotFreeBefore,
  SUCCESS_REFRESH_MS,
  successChangesHealth,
} from '../../shared/delivery/circuit-breaker';
import { NO_HEALTH, type CircuitHealth } from '../../shared/schemas/circuit-health';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
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

  it('says why a held attempt was not made, naming the destination and never more', () => {
    expect(heldOutcome('webhook#abc', open)).toEqual({
      status: 'retry',
      error: `not attempted: the circuit of webhook#abc is open since ${iso(T0)} after ${FAILURES_TO_OPEN} failures in a row; last error: the endpoint answered 503`,
    });
  });

  it('disables endpoints open since 5 days before now', () => {
    expect(disableCutoff(Date.parse('2026-03-06T10:00:00.000Z'))).toBe('2026-03-01T10:00:00.000Z');
  });
});
