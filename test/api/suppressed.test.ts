import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import type { Emulators } from '../../infra/local/emulators';
import { suppressedResponseSchema } from '../../shared/api/suppressed-schemas';
import { projectRuleChange } from '../../shared/pipeline/projection';
import { getRule } from '../../shared/store/rules-store';
import { registerVehicle } from '../../shared/store/vehicle-registry';
import { startTestEmulators } from '../support/emulators';
import { invoke, sqsRecord } from '../pipeline/support';
import { TestClock, login, ruleBody, seedTenants, session, depotZoneBody, typedApiClient, type JsonBody, type TypedApi } from './support';

/**
 * POST /api/v3/notifications/suppressed over runs written by the evaluate handler: rules stored through the API
 * and projected, speeding episodes evaluated one batch each, the answer read back through the API.
 */
const clock = new TestClock();
/** Sunday 2026-03-01 08:01 UTC, a minute after the API's clock stores the rules. */
const START = clock.value + 60_000;
const iso = (second: number) => new Date(START + second * 1000).toISOString();
/** Outside the square zone of depotZoneBody(). */
const OUTSIDE = { latitude: 55.75, longitude: 37.62 };
/** Speeding episodes (120 km/h, then 40) starting at these seconds after START. */
const EPISODES = [0, 120, 240, 700, 760];
/** Alerts on the first message over the limit, ends on the first under it. */
const SPEEDING = { limit: '90', minDuration: '0', endDuration: '0' };

describe('POST /api/v3/notifications/suppressed', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  const tokens = { root: '', child: '', sibling: '', readOnly: '' };
  const rules = { schedule: 0, zone: 0, cooldown: 0, maxPerDay: 0, inactive: 0, child: 0, sibling: 0 };

  // the bodies include ones the API must refuse: the API checks them, not the compiler
  const ask = (body: object, token = tokens.root) =>
    api.POST('/api/v3/notifications/suppressed', {
      headers: session(token),
      body: { vehicleId: 101, from: iso(-60), to: iso(3_600), ...body } as JsonBody<'listSuppressedEvaluations'>,
    });
  const create = async (token: string, body: object) => {
    const { data, error, response } = await api.POST('/api/v3/notifications', {
      headers: session(token),
      body: body as JsonBody<'createNotificationRule'>,
    });
    expect(response.status, JSON.stringify(data ?? error)).toBe(200);
    await projectRuleChange(undefined, (await getRule(data!.id))!);
    return data!.id;
  };
  const paths = (result: { error?: { issues?: { path: string }[] } }) => (result.error?.issues ?? []).map((issue) => issue.path).sort();

  beforeAll(async () => {
    emulators = await startTestEmulators('api-suppressed');
    tenants = await seedTenants('suppressed');
    api = typedApiClient({ now: clock.now });
    for (const name of ['root', 'child', 'sibling', 'readOnly'] as const) tokens[name] = await login(api, tenants[name]);
    const zone = await api.POST('/api/v3/gis', {
      headers: session(tokens.root),
      body: depotZoneBody(tenants.root.agentId) as JsonBody<'createGeozone'>,
    });
    expect(zone.response.status).toBe(200);
    const speeding = (settings: Record<string, unknown>, overrides: Record<string, unknown> = {}) =>
      ruleBody(tenants.root.agentId, { timezone: 0, settings: { ...SPEEDING, ...settings }, ...overrides });
    rules.schedule = await create(tokens.root, speeding({ schedule: 'Mon-Fri 08:00-18:00' }));
    rules.zone = await create(tokens.root, speeding({ zones: String(zone.data!.id) }));
    rules.cooldown = await create(tokens.root, speeding({ cooldown: 600 }));
    rules.maxPerDay = await create(tokens.root, speeding({ maxPerDay: 1 }));
    rules.inactive = await create(tokens.root, speeding({}, { active: false }));
    rules.sibling = await create(tokens.sibling, ruleBody(tenants.sibling.agentId, { vehicleIds: [202] }));
    // a rule of the child client over its vehicle 304, which then moves up to the root client
    await registerVehicle({ vehicleId: 304, name: 'Van 304', parentId: tenants.child.agentId }, { allowMove: true });
    rules.child = await create(tokens.child, ruleBody(tenants.child.agentId, { vehicleIds: [304] }));
    await registerVehicle({ vehicleId: 304, name: 'Van 304', parentId: tenants.root.agentId }, { allowMove: true });

    let now = 0;
    const evaluate = createEvaluateHandler({ clock: () => now });
    for (const start of EPISODES) {
      for (const [second, speed] of [
        [start, 120],
        [start + 10, 40],
      ] as const) {
        now = START + second * 1000 + 1000;
        const message = { vehicleId: 101, deviceTime: iso(second), ...OUTSIDE, speed };
        expect(await invoke(evaluate, [sqsRecord(message)])).toEqual({ batchItemFailures: [] });
      }
    }
  });
  afterAll(async () => emulators.stop());

  /** The answer, checked against the response schema the OpenAPI document is built from. */
  const answerOf = ({ data, error, response }: { data?: unknown; error?: unknown; response: Response }) => {
    expect(response.status, JSON.stringify(data ?? error)).toBe(200);
    expect(suppressedResponseSchema.strict().parse(data)).toEqual(data);
    return suppressedResponseSchema.parse(data);
  };

  it('answers the open run of the schedule and of the zone condition, every episode in it', async () => {
    for (const [ruleId, reason] of [
      [rules.schedule, 'outsideSchedule'],
      [rules.zone, 'outsideZones'],
    ] as const) {
      expect(answerOf(await ask({ ruleId }))).toEqual({
        runs: [{ reason, first: iso(EPISODES[0]!), last: iso(EPISODES.at(-1)!), count: EPISODES.length, open: true }],
        now: [],
      });
    }
  });

  it('answers the cooldown: the run an alert closed, logged, and the open one after it, newest first', async () => {
    expect(answerOf(await ask({ ruleId: rules.cooldown }))).toEqual({
      runs: [
        { reason: 'cooldown', first: iso(760), last: iso(760), count: 1, open: true },
        { reason: 'cooldown', first: iso(120), last: iso(240), count: 2, open: false },
      ],
      now: [],
    });
    // only the runs that overlap the window
    expect(answerOf(await ask({ ruleId: rules.cooldown, from: iso(300), to: iso(800) })).runs).toEqual([
      { reason: 'cooldown', first: iso(760), last: iso(760), count: 1, open: true },
    ]);
    expect(answerOf(await ask({ ruleId: rules.cooldown, from: iso(0), to: iso(100) })).runs).toEqual([]);
  });

  it("answers maxPerDay from the day's notice on, and read-only users may read it", async () => {
    const expected = {
      runs: [{ reason: 'maxPerDay', first: iso(120), last: iso(760), count: 4, open: true }],
      now: [],
    };
    expect(answerOf(await ask({ ruleId: rules.maxPerDay }))).toEqual(expected);
    expect(answerOf(await ask({ ruleId: rules.maxPerDay }, tokens.readOnly))).toEqual(expected);
  });

  it('says why the rule raises nothing for the vehicle now', async () => {
    expect(answerOf(await ask({ ruleId: rules.inactive })).now).toEqual(['ruleInactive']);
    // the rules were made for 30 days (and the session ends before that)
    clock.advance(31 * 86_400_000);
    try {
      expect(answerOf(await ask({ ruleId: rules.cooldown }, await login(api, tenants.root))).now).toEqual(['ruleExpired']);
    } finally {
      clock.advance(-31 * 86_400_000);
    }
    expect(answerOf(await ask({ ruleId: rules.cooldown, vehicleId: 303 })).now).toEqual(['vehicleNotWatched']);
    expect(answerOf(await ask({ ruleId: rules.child, vehicleId: 304 })).now).toEqual(['vehicleNotOwned']);
  });

  it('answers tooOld runs with the oldest age: a black box sent half an hour late, then a current episode', async () => {
    await registerVehicle({ vehicleId: 105, name: 'Truck 105', parentId: tenants.root.agentId }, { allowMove: true });
    const ruleId = await create(tokens.root, ruleBody(tenants.root.agentId, { timezone: 0, vehicleIds: [105], settings: SPEEDING }));
    const message = (second: number, speed: number) => sqsRecord({ vehicleId: 105, deviceTime: iso(second), ...OUTSIDE, speed });
    // two episodes read at 0 and 120 s, sent at 1800 s, then a third read and sent at 1900 s
    const late = createEvaluateHandler({ clock: () => START + 1_800_000 });
    expect(await invoke(late, [message(0, 120), message(10, 40), message(120, 120), message(130, 40)])).toEqual({ batchItemFailures: [] });
    const open = { reason: 'tooOld', first: iso(0), last: iso(120), count: 2 };
    expect(answerOf(await ask({ ruleId, vehicleId: 105 })).runs).toEqual([{ ...open, open: true, age: 1_800 }]);
    const current = createEvaluateHandler({ clock: () => START + 1_901_000 });
    expect(await invoke(current, [message(1_900, 120)])).toEqual({ batchItemFailures: [] });
    expect(answerOf(await ask({ ruleId, vehicleId: 105 })).runs).toEqual([{ ...open, open: false, age: 1_800 }]);
  });

  it('answers 404 for a rule or a vehicle out of scope, or unknown', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ruleId: rules.sibling }, tokens.root],
      [{ ruleId: rules.cooldown, vehicleId: 202 }, tokens.root],
      [{ ruleId: rules.cooldown }, tokens.sibling],
      [{ ruleId: rules.cooldown, vehicleId: 303 }, tokens.child],
      [{ ruleId: 999_999 }, tokens.root],
      [{ ruleId: rules.cooldown, vehicleId: 999_999 }, tokens.root],
    ];
    for (const [body, token] of cases) {
      const response = await ask(body, token);
      expect(response.response.status, JSON.stringify(body)).toBe(404);
      expect(response.error?.error).toBe('NotFound');
    }
  });

  it('answers 400 naming each bad field, and 401 without a session', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ ruleId: rules.cooldown, extra: 1 }, ['extra']],
      [{ ruleId: rules.cooldown, from: iso(100), to: iso(0) }, ['to']],
      [{ ruleId: 'seven', vehicleId: 1.5 }, ['ruleId', 'vehicleId']],
      [{ ruleId: rules.cooldown, from: 'yesterday', to: 17 }, ['from', 'to']],
      [{ ruleId: 0 }, ['ruleId']],
    ];
    for (const [body, expected] of cases) {
      const response = await ask(body);
      expect(response.response.status, JSON.stringify(body)).toBe(400);
      expect(paths(response), JSON.stringify(body)).toEqual(expected);
    }
    const missing = await api.POST('/api/v3/notifications/suppressed', {
      headers: session(tokens.root),
      // @ts-expect-error a body without any field, on purpose
      body: {},
    });
    expect(missing.response.status).toBe(400);
    expect(paths(missing)).toEqual(['from', 'ruleId', 'to', 'vehicleId']);
    const anonymous = await api.POST('/api/v3/notifications/suppressed', {
      // @ts-expect-error a body without the vehicle and the window, on purpose
      body: { ruleId: rules.cooldown },
    });
    expect(anonymous.response.status).toBe(401);
  });
});
