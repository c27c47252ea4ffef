import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { deviceMs, isoToMs, numericParameter, switchParameter } from '../../shared/rules/message-values';
import { message } from './fixtures';

describe('message values', () => {
  test.prop([fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true })])(
    'isoToMs reads UTC times as Date.parse does',
    (date) => {
      const text = date.toISOString();
      expect(isoToMs(text)).toBe(Date.parse(text));
    },
  );

  it.each(['2026-03-01T03:00:00+03:00', '2026-03-01T00:00:00Z', '2026-03-01T00:00:00.5Z', '2026-03-01T00:00:00.123456Z'])(
    'isoToMs reads %s',
    (text) => {
      expect(isoToMs(text)).toBe(Date.parse(text));
    },
  );

  it('deviceMs follows the message it is given', () => {
    const a = message(0);
    const b = message(10);
    expect(deviceMs(a)).toBe(Date.parse(a.deviceTime));
    expect(deviceMs(b)).toBe(Date.parse(b.deviceTime));
    expect(deviceMs(a)).toBe(Date.parse(a.deviceTime));
  });

  it('reads numeric and digital parameters', () => {
    const m = message(0, { parameters: { a: '12.5', b: '', c: 'x', d: 'ON', e: '0', f: '-3', g: 'false' } });
    expect([numericParameter(m, 'a'), numericParameter(m, 'b'), numericParameter(m, 'c'), numericParameter(m, 'z')]).toEqual([
      12.5,
      undefined,
      undefined,
      undefined,
    ]);
    expect(['d', 'e', 'f', 'g', 'b', 'c', 'z'].map((key) => switchParameter(m, key))).toEqual([
      true,
      false,
      true,
      false,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
