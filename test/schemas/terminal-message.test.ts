import { describe, expect, it } from 'vitest';
import { MESSAGE_LIMITS, parseTerminalMessage } from '../../shared/schemas/terminal-message';

const now = Date.parse('2026-11-23T03:00:00Z');
const valid = {
  vehicleId: 1001,
  deviceTime: '2026-11-23T02:59:50Z',
  latitude: 55.75123456789,
  longitude: 37.6184,
  speed: 97.123456,
  parameters: { ignition: 1, fuel: 182.4, panic: false },
};

describe('terminal message parsing', () => {
  it('keeps readings at terminal precision and parameters as strings', () => {
    const result = parseTerminalMessage(JSON.stringify({ ...valid, voltage: 1e-200 }), now);
    expect(result).toMatchObject({
      ok: true,
      message: { latitude: 55.7512346, speed: 97.123, voltage: 0, parameters: { ignition: '1', fuel: '182.4', panic: 'false' } },
    });
  });

  it('names every problem of a bad message, for the DLQ reason', () => {
    const result = parseTerminalMessage(JSON.stringify({ ...valid, vehicleId: 'x', latitude: 91, speed: -1 }), now);
    expect(result.ok).toBe(false);
    const reason = result.ok ? '' : result.reason;
    expect(reason).toMatch(/vehicleId:/);
    expect(reason).toMatch(/latitude:/);
    expect(reason).toMatch(/speed:/);
  });

  it('rejects malformed JSON, future device times and oversized parameter maps', () => {
    expect(parseTerminalMessage('{"vehicleId":', now)).toMatchObject({ ok: false, reason: expect.stringMatching(/^malformed JSON/) });
    const future = new Date(now + MESSAGE_LIMITS.futureToleranceMs + 1_000).toISOString();
    expect(parseTerminalMessage(JSON.stringify({ ...valid, deviceTime: future }), now)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/future/),
    });
    const slightlyAhead = new Date(now + 60_000).toISOString();
    expect(parseTerminalMessage(JSON.stringify({ ...valid, deviceTime: slightlyAhead }), now).ok).toBe(true);
    const parameters = Object.fromEntries(Array.from({ length: MESSAGE_LIMITS.maxParameters + 1 }, (_, index) => [`p${index}`, '1']));
    expect(parseTerminalMessage(JSON.stringify({ ...valid, parameters }), now)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/parameters/),
    });
  });

  it("takes the producer's stamp in UTC, before or after deviceTime, and refuses one from the future", () => {
    const stamp = (previousDeviceTime: string) => parseTerminalMessage(JSON.stringify({ ...valid, previousDeviceTime }), now);
    expect(stamp('2026-11-23T05:59:40+03:00')).toMatchObject({ ok: true, message: { previousDeviceTime: '2026-11-23T02:59:40.000Z' } });
    // a stamp after deviceTime is a late message, not a malformed one
    expect(stamp('2026-11-23T03:00:30Z')).toMatchObject({ ok: true, message: { previousDeviceTime: '2026-11-23T03:00:30.000Z' } });
    expect(stamp(new Date(now + MESSAGE_LIMITS.futureToleranceMs + 1_000).toISOString())).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^previousDeviceTime: .* in the future/),
    });
    expect(stamp('2026-11-23')).toMatchObject({ ok: false, reason: expect.stringMatching(/^previousDeviceTime: /) });
    const unstamped = parseTerminalMessage(JSON.stringify(valid), now);
    expect(unstamped.ok).toBe(true);
    expect(unstamped.ok && unstamped.message).not.toHaveProperty('previousDeviceTime');
  });
});
