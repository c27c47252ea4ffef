import { describe, expect, it } from 'vitest';
import { anchorAt, onCallAt } from '../../shared/delivery/on-call';
import type { Handoff, RotaOverride } from '../../shared/schemas/rota';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

function rota(handoff: Handoff, createdAt: string, overrides: RotaOverride[] = [], participants = [A, B, C]) {
  return { participants, handoff, timezone: 'Europe/Berlin', anchor: anchorAt(handoff, 'Europe/Berlin', at(createdAt)), overrides };
}
const who = (r: ReturnType<typeof rota>, time: string) => {
  const onCall = onCallAt(r, at(time));
  return { userId: onCall.userId, from: iso(onCall.from), until: iso(onCall.until), ...(onCall.overrideId ? { overrideId: onCall.overrideId } : {}) };
};

describe('on call', () => {
  it('starts with the first participant at the last handoff and moves on by one each day', () => {
    // created Wednesday 2027-01-13 15:00 Berlin (14:00 UTC); handoff 08:00 Berlin (07:00 UTC in winter)
    const daily = rota({ every: 'day', at: '08:00' }, '2027-01-13T14:00:00Z');
    expect(who(daily, '2027-01-13T14:00:00Z')).toEqual({ userId: A, from: '2027-01-13T07:00:00.000Z', until: '2027-01-14T07:00:00.000Z' });
    expect(who(daily, '2027-01-14T06:59:59Z').userId).toBe(A);
    expect(who(daily, '2027-01-14T07:00:00Z').userId).toBe(B);
    expect(who(daily, '2027-01-15T07:00:00Z').userId).toBe(C);
    expect(who(daily, '2027-01-16T07:00:00Z').userId).toBe(A);
    // before the rota began, the rotation runs backwards
    expect(who(daily, '2027-01-12T12:00:00Z').userId).toBe(C);
  });

  it('hands over at 08:00 Berlin time across both 2027 daylight-saving changes', () => {
    const daily = rota({ every: 'day', at: '08:00' }, '2027-03-26T12:00:00Z');
    // clocks go forward on Sunday 2027-03-28: the Saturday shift is 23 hours long, and 08:00 is then 06:00 UTC
    expect(who(daily, '2027-03-27T12:00:00Z')).toEqual({ userId: B, from: '2027-03-27T07:00:00.000Z', until: '2027-03-28T06:00:00.000Z' });
    expect(who(daily, '2027-03-28T06:00:00Z')).toEqual({ userId: C, from: '2027-03-28T06:00:00.000Z', until: '2027-03-29T06:00:00.000Z' });
    expect(who(daily, '2027-03-28T05:59:59Z').userId).toBe(B);

    // clocks go back on Sunday 2027-10-31: the Saturday shift is 25 hours long, and 08:00 is then 07:00 UTC
    const autumn = rota({ every: 'day', at: '08:00' }, '2027-10-29T12:00:00Z');
    expect(who(autumn, '2027-10-30T12:00:00Z')).toEqual({ userId: B, from: '2027-10-30T06:00:00.000Z', until: '2027-10-31T07:00:00.000Z' });
    expect(who(autumn, '2027-10-31T06:30:00Z').userId).toBe(B);
    expect(who(autumn, '2027-10-31T07:00:00Z')).toEqual({ userId: C, from: '2027-10-31T07:00:00.000Z', until: '2027-11-01T07:00:00.000Z' });
  });

  it('takes a handoff inside the skipped hour at its later offset, and one inside the repeated hour at its first', () => {
    const skipped = rota({ every: 'day', at: '02:30' }, '2027-03-26T12:00:00Z');
    // 02:30 does not exist on 2027-03-28 in Berlin: the handoff happens at 03:30 CEST (01:30 UTC), never before the wall clock
    expect(who(skipped, '2027-03-27T12:00:00Z').until).toBe('2027-03-28T01:30:00.000Z');
    const repeated = rota({ every: 'day', at: '02:30' }, '2027-10-29T12:00:00Z');
    // 02:30 happens twice on 2027-10-31: the handoff is the first (02:30 CEST, 00:30 UTC), and once only
    expect(who(repeated, '2027-10-30T12:00:00Z').until).toBe('2027-10-31T00:30:00.000Z');
    expect(who(repeated, '2027-10-31T01:30:00Z').until).toBe('2027-11-01T01:30:00.000Z');
  });

  it('hands over weekly on its weekday, across the autumn change', () => {
    const weekly = rota({ every: 'week', at: '09:00', weekday: 'Mon' }, '2027-10-20T10:00:00Z');
    // the shift that began Monday 2027-10-18 09:00 CEST (07:00 UTC) ends Monday 2027-10-25; the next spans the change
    expect(who(weekly, '2027-10-20T10:00:00Z')).toEqual({ userId: A, from: '2027-10-18T07:00:00.000Z', until: '2027-10-25T07:00:00.000Z' });
    expect(who(weekly, '2027-10-31T12:00:00Z')).toEqual({ userId: B, from: '2027-10-25T07:00:00.000Z', until: '2027-11-01T08:00:00.000Z' });
    expect(who(weekly, '2027-11-01T08:00:00Z').userId).toBe(C);
  });

  it('lets an override win, the one made last where two cover the same time, and cuts the shift around it', () => {
    const override = (id: string, userId: string, from: string, to: string): RotaOverride => ({
      id: id.padEnd(22, 'x'),
      userId,
      from,
      to,
      createdAt: '2027-01-01T00:00:00.000Z',
      createdBy: 'planner',
    });
    const overrides = [
      override('first', C, '2027-01-13T10:00:00.000Z', '2027-01-13T18:00:00.000Z'),
      override('second', B, '2027-01-13T12:00:00.000Z', '2027-01-13T14:00:00.000Z'),
    ];
    const daily = rota({ every: 'day', at: '08:00' }, '2027-01-13T08:00:00Z', overrides);
    expect(who(daily, '2027-01-13T09:00:00Z')).toEqual({ userId: A, from: '2027-01-13T07:00:00.000Z', until: '2027-01-13T10:00:00.000Z' });
    expect(who(daily, '2027-01-13T11:00:00Z')).toEqual({
      userId: C,
      from: '2027-01-13T10:00:00.000Z',
      until: '2027-01-13T12:00:00.000Z',
      overrideId: overrides[0]!.id,
    });
    expect(who(daily, '2027-01-13T13:00:00Z')).toMatchObject({ userId: B, overrideId: overrides[1]!.id, until: '2027-01-13T14:00:00.000Z' });
    expect(who(daily, '2027-01-13T19:00:00Z')).toEqual({ userId: A, from: '2027-01-13T18:00:00.000Z', until: '2027-01-14T07:00:00.000Z' });
  });
});
