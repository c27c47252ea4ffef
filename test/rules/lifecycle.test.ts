import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DAY_MS, ProlongationError, initialValidity, isEffective, prolong, replacedValidity, sweepDecision } from '../../shared/rules/lifecycle';
import { T0, body, storedRule } from './fixtures';

const at = (ms: number) => new Date(ms).toISOString();

describe('isEffective', () => {
  it('is true for an active, activated, unexpired rule', () => {
    expect(isEffective(storedRule(), T0 + 1000)).toBe(true);
  });
  it('is false for an inactive rule', () => {
    expect(isEffective(storedRule({ active: false }), T0 + 1000)).toBe(false);
  });
  it('waits for the activation time in activation mode 1', () => {
    const rule = storedRule({ activationMode: 1, activationTime: at(T0 + DAY_MS) });
    expect(isEffective(rule, T0 + DAY_MS - 1)).toBe(false);
    expect(isEffective(rule, T0 + DAY_MS)).toBe(true);
  });
  it('ignores activationTime in activation mode 0', () => {
    expect(isEffective(storedRule({ activationMode: 0, activationTime: at(T0 + DAY_MS) }), T0)).toBe(true);
  });
  it('ends exactly at expiresAt', () => {
    const rule = storedRule({ expiresAt: at(T0 + 5000) });
    expect(isEffective(rule, T0 + 4999)).toBe(true);
    expect(isEffective(rule, T0 + 5000)).toBe(false);
  });
});

describe('initialValidity', () => {
  it('starts now in activation mode 0', () => {
    expect(initialValidity(body({ validity: 10 }), T0)).toEqual({ validFrom: at(T0), expiresAt: at(T0 + 10 * DAY_MS) });
  });
  it('starts at the activation time in activation mode 1', () => {
    const start = T0 + 3 * DAY_MS;
    expect(initialValidity(body({ validity: 7, activationMode: 1, activationTime: at(start) }), T0)).toEqual({
      validFrom: at(start),
      expiresAt: at(start + 7 * DAY_MS),
    });
  });
  it('accepts activation times with an offset', () => {
    const result = initialValidity(body({ validity: 1, activationMode: 1, activationTime: '2026-03-02T03:00:00+03:00' }), T0);
    expect(result.validFrom).toBe('2026-03-02T00:00:00.000Z');
  });
});

describe('replacedValidity', () => {
  it('keeps the period start and applies the new validity', () => {
    const previous = storedRule({ validFrom: at(T0), expiresAt: at(T0 + 90 * DAY_MS) });
    expect(replacedValidity(previous, body({ active: true, validity: 30 }), T0 + DAY_MS)).toEqual({
      validFrom: at(T0),
      expiresAt: at(T0 + 30 * DAY_MS),
    });
  });
  it('restarts from now when made active after the period is over', () => {
    const previous = storedRule({ active: false, validFrom: at(T0), expiresAt: at(T0 + 10 * DAY_MS) });
    const now = T0 + 20 * DAY_MS;
    expect(replacedValidity(previous, body({ active: true, validity: 10 }), now)).toEqual({
      validFrom: at(now),
      expiresAt: at(now + 10 * DAY_MS),
    });
  });
  it('does not restart an inactive expired rule', () => {
    const previous = storedRule({ active: false, validFrom: at(T0), expiresAt: at(T0 + 10 * DAY_MS) });
    expect(replacedValidity(previous, body({ active: false, validity: 10 }), T0 + 20 * DAY_MS)).toEqual({
      validFrom: at(T0),
      expiresAt: at(T0 + 10 * DAY_MS),
    });
  });
  it('restarts when shortening the validity puts the end in the past', () => {
    const previous = storedRule({ validFrom: at(T0), expiresAt: at(T0 + 90 * DAY_MS) });
    const now = T0 + 40 * DAY_MS;
    expect(replacedValidity(previous, body({ active: true, validity: 30 }), now).validFrom).toBe(at(now));
  });
  it('moves the start to a new activation time', () => {
    const previous = storedRule({ validFrom: at(T0) });
    const start = T0 + 5 * DAY_MS;
    expect(replacedValidity(previous, body({ active: true, validity: 2, activationMode: 1, activationTime: at(start) }), T0)).toEqual({
      validFrom: at(start),
      expiresAt: at(start + 2 * DAY_MS),
    });
  });
  it('keeps the start when the same activation time is sent again', () => {
    const activation = at(T0 + 5 * DAY_MS);
    const previous = storedRule({ activationMode: 1, activationTime: activation, validFrom: at(T0 + DAY_MS) });
    const result = replacedValidity(previous, body({ active: true, validity: 2, activationMode: 1, activationTime: activation }), T0);
    expect(result.validFrom).toBe(at(T0 + DAY_MS));
  });
});

describe('the 90-day cap', () => {
  it('cannot be bypassed by switching a far-deferred rule to immediate activation', () => {
    const activation = T0 + 730 * DAY_MS;
    const created = initialValidity(body({ active: true, validity: 90, activationMode: 1, activationTime: at(activation) }), T0);
    const previous = storedRule({ activationMode: 1, activationTime: at(activation), validity: 90, ...created });
    const now = T0 + DAY_MS;
    const replaced = replacedValidity(previous, body({ active: true, validity: 90, activationMode: 0, activationTime: at(activation) }), now);
    expect(replaced).toEqual({ validFrom: at(now), expiresAt: at(now + 90 * DAY_MS) });
  });
  it('keeps a prolongation across a replace that changes neither start nor validity', () => {
    const previous = storedRule({ validity: 30, validFrom: at(T0), expiresAt: at(T0 + 50 * DAY_MS) });
    expect(replacedValidity(previous, body({ active: true, validity: 30 }), T0 + 10 * DAY_MS).expiresAt).toBe(at(T0 + 50 * DAY_MS));
  });

  const day = fc.integer({ min: -400, max: 800 });
  const ruleAt = fc.record({
    activationMode: fc.constantFrom(0 as const, 1 as const),
    activationDay: day,
    validity: fc.integer({ min: 1, max: 90 }),
    active: fc.boolean(),
    autoProlongation: fc.boolean(),
  });
  type Step =
    | { kind: 'replace'; rule: { activationMode: 0 | 1; activationDay: number; validity: number; active: boolean; autoProlongation: boolean } }
    | { kind: 'prolong'; days: number }
    | { kind: 'sweep' };
  const step = fc.tuple(
    fc.integer({ min: 0, max: 40 }),
    fc.oneof(
      ruleAt.map((rule) => ({ kind: 'replace', rule }) as Step),
      fc.integer({ min: 1, max: 90 }).map((days) => ({ kind: 'prolong', days }) as Step),
      fc.constant({ kind: 'sweep' } as Step),
    ),
  );
  const toBody = (rule: { activationMode: 0 | 1; activationDay: number; validity: number; active: boolean; autoProlongation: boolean }) =>
    body({ ...rule, activationTime: at(T0 + rule.activationDay * DAY_MS) });

  test.prop([ruleAt, fc.array(step, { maxLength: 12 })])(
    'on every path, an expiry never passes 90 days after max(now, start), and prolongation never moves it earlier',
    (initial, steps) => {
      let now = T0;
      const first = toBody(initial);
      let rule = storedRule({ ...first, ...initialValidity(first, now) });
      const withinCap = () => expect(Date.parse(rule.expiresAt)).toBeLessThanOrEqual(Math.max(Date.parse(rule.validFrom), now) + 90 * DAY_MS);
      withinCap();
      for (const [daysLater, action] of steps) {
        now += daysLater * DAY_MS;
        if (action.kind === 'replace') {
          const next = toBody(action.rule);
          rule = { ...rule, ...next, ...replacedValidity(rule, next, now) };
        } else if (action.kind === 'prolong') {
          const before = Date.parse(rule.expiresAt);
          rule = { ...rule, expiresAt: prolong(rule, action.days, now).expiresAt };
          expect(Date.parse(rule.expiresAt)).toBeGreaterThanOrEqual(before);
        } else {
          const decision = sweepDecision(rule, now);
          if (decision.action === 'deactivate') rule = { ...rule, active: false };
          if (decision.action === 'prolong') {
            expect(Date.parse(decision.expiresAt)).toBeGreaterThan(Date.parse(rule.expiresAt));
            rule = { ...rule, expiresAt: decision.expiresAt, validFrom: at(Date.parse(decision.expiresAt) - rule.validity * DAY_MS) };
          }
        }
        withinCap();
        // a rule in force now never stays in force beyond 90 days from now
        if (isEffective(rule, now)) expect(Date.parse(rule.expiresAt)).toBeLessThanOrEqual(now + 90 * DAY_MS);
      }
    },
  );
});

describe('prolong', () => {
  it('extends from the current expiry', () => {
    const rule = storedRule({ expiresAt: at(T0 + 10 * DAY_MS) });
    expect(prolong(rule, 5, T0)).toEqual({ expiresAt: at(T0 + 15 * DAY_MS), clamped: false });
  });
  it('extends from now when already expired', () => {
    const rule = storedRule({ expiresAt: at(T0 - 10 * DAY_MS) });
    expect(prolong(rule, 5, T0)).toEqual({ expiresAt: at(T0 + 5 * DAY_MS), clamped: false });
  });
  it('never goes more than 90 days ahead of now, and says when it clamped', () => {
    const rule = storedRule({ expiresAt: at(T0 + 80 * DAY_MS) });
    expect(prolong(rule, 30, T0)).toEqual({ expiresAt: at(T0 + 90 * DAY_MS), clamped: true });
  });
  it('never moves an expiry earlier, even one already beyond the cap', () => {
    const rule = storedRule({ validFrom: at(T0), expiresAt: at(T0 + 820 * DAY_MS) });
    expect(prolong(rule, 1, T0)).toEqual({ expiresAt: at(T0 + 820 * DAY_MS), clamped: true });
  });
  it('counts the cap of a rule not yet activated from its activation', () => {
    const activation = T0 + 30 * DAY_MS;
    const rule = storedRule({
      activationMode: 1,
      activationTime: at(activation),
      validFrom: at(activation),
      expiresAt: at(activation + 90 * DAY_MS),
    });
    expect(prolong(rule, 10, T0)).toEqual({ expiresAt: at(activation + 90 * DAY_MS), clamped: true });
  });
  it.each([0, -1, 91, 1.5, Number.NaN])('rejects %s days', (days) => {
    expect(() => prolong(storedRule(), days, T0)).toThrow(ProlongationError);
  });
});

describe('sweepDecision', () => {
  it('leaves unexpired and inactive rules alone', () => {
    expect(sweepDecision(storedRule({ expiresAt: at(T0 + 1) }), T0)).toEqual({ action: 'none' });
    expect(sweepDecision(storedRule({ active: false, expiresAt: at(T0 - 1) }), T0)).toEqual({ action: 'none' });
  });
  it('deactivates an expired rule without auto-prolongation', () => {
    expect(sweepDecision(storedRule({ expiresAt: at(T0) }), T0)).toEqual({ action: 'deactivate' });
  });
  it('prolongs an expired rule by one validity period', () => {
    const rule = storedRule({ autoProlongation: true, validity: 7, expiresAt: at(T0 - 1000) });
    expect(sweepDecision(rule, T0)).toEqual({ action: 'prolong', expiresAt: at(T0 - 1000 + 7 * DAY_MS) });
  });
  it('prolongs by as many periods as needed to end in the future', () => {
    const rule = storedRule({ autoProlongation: true, validity: 1, expiresAt: at(T0) });
    const decision = sweepDecision(rule, T0 + 3 * DAY_MS + 5);
    expect(decision).toEqual({ action: 'prolong', expiresAt: at(T0 + 4 * DAY_MS) });
  });
  it('prolongs a rule that expires exactly now', () => {
    const rule = storedRule({ autoProlongation: true, validity: 2, expiresAt: at(T0) });
    expect(sweepDecision(rule, T0)).toEqual({ action: 'prolong', expiresAt: at(T0 + 2 * DAY_MS) });
  });
});
