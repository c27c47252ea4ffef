import { beforeAll, describe, expect, it } from 'vitest';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { createSweepHandler } from '../../functions/sweep/handler';
import { handler as deliver } from '../../functions/deliver/handler';
import { lambdaContext } from '../../infra/local/sqs-poller';
import { resourcesConfig } from '../../shared/config';
import { projectRuleChange } from '../../shared/pipeline/projection';
import { RULE_TYPES } from '../../shared/schemas/notification';
import type { TerminalMessageInput } from '../../shared/schemas/terminal-message';
import { createUser } from '../../shared/store/directory-store';
import { getRule } from '../../shared/store/rules-store';
import { registerVehicle } from '../../shared/store/vehicle-registry';
import { useDeliverHarness } from '../support/deliver-harness';
import { clearSentEmails, sentEmails } from '../support/emulators';
import { confirmSideEmails } from '../support/owned-fleet';
import { alertsInTable, drainQueue, invoke, scanTable, sqsRecord } from '../pipeline/support';
import { TestClock, login, ruleBody, seedTenants, session, depotZoneBody, typedApiClient, type JsonBody, type TypedApi } from './support';

const ACKNOWLEDGE_TRAILER = /\n\n[^\n]+: \S+\/api\/v3\/alerts\/acknowledge\/[\w.-]+$/;

/**
 * The preview against the pipeline: for each case the same rule and messages go once through
 * POST /api/v3/notifications/preview and once through the deployed handlers (evaluate per arrival, the sweep
 * before each arrival and at `until`, deliver to the SES emulator). The preview must answer exactly the alerts
 * the pipeline stored, each with the text of the e-mail it sent.
 */
const clock = new TestClock();
/** Messages start a minute after the API's clock, which stores the rules: Sunday 2026-03-01 08:01 UTC. */
const START = clock.value + 60_000;
const SIDE_EMAIL = 'preview@example.com';
const INSIDE = { latitude: 55.705, longitude: 37.605 };
const OUTSIDE = { latitude: 55.73, longitude: 37.65 };

interface Fixture {
  zoneId: number;
  /** A user of the root client who reads Russian. */
  russianUserId: string;
}

/** [seconds after START, speed, anything else of the message]. */
type Step = [number, number, Partial<TerminalMessageInput>?];

interface PreviewCase {
  name: string;
  type: number;
  /** Fields of the rule body besides type, vehicle and channels. */
  rule: (fixture: Fixture) => Record<string, unknown>;
  messages: Step[];
  /** Seconds after START; default: the newest arrival. */
  until?: number;
  /** What the preview must also report as suppressed: [seconds after START, reason, age in seconds (tooOld)]. */
  suppressed?: [number, string, number?][];
  /** A maintenance silence of the rule's client over the case's vehicle, from START for this many seconds. */
  silencedSeconds?: number;
}

const every = (from: number, to: number, stepSeconds: number, speed: number, extra: Partial<TerminalMessageInput> = {}): Step[] =>
  Array.from({ length: Math.floor((to - from) / stepSeconds) + 1 }, (_, index) => [from + index * stepSeconds, speed, extra]);

const SPEEDING_TRACE: Step[] = [
  [0, 50],
  [10, 100],
  [20, 110],
  [30, 120],
];

/** Three speeding episodes a minute apart, each alerted at its first message with minDuration 0. */
const NOISY_TRACE: Step[] = [
  [0, 120],
  [10, 40],
  [60, 120],
  [70, 40],
  [120, 120],
  [130, 40],
];

/** One case per rule type (a test below keeps it so); add a type's case here. */
const TYPE_CASES: PreviewCase[] = [
  {
    name: 'geozone entry and exit',
    type: RULE_TYPES.geozone,
    rule: ({ zoneId }) => ({ geoids: [zoneId], settings: { mode: 'both' } }),
    messages: [
      [0, 30, OUTSIDE],
      [30, 30, INSIDE],
      [60, 20, INSIDE],
      [120, 40, OUTSIDE],
    ],
  },
  { name: 'speeding', type: RULE_TYPES.speeding, rule: () => ({ settings: { limit: 90, minDuration: 10 } }), messages: SPEEDING_TRACE },
  {
    name: 'fuel drain',
    type: RULE_TYPES.drain,
    rule: () => ({ settings: { window: 1, threshold: 10, settle: 60 } }),
    messages: [...every(0, 20, 10, 0, { parameters: { fuel: 100 } }), ...every(30, 200, 10, 0, { parameters: { fuel: 80 } })],
  },
  {
    name: 'fuelling',
    type: RULE_TYPES.fuelling,
    rule: () => ({ settings: { window: 1, threshold: 10, settle: 60 } }),
    messages: [...every(0, 20, 10, 0, { parameters: { fuel: 20 } }), ...every(30, 200, 10, 0, { parameters: { fuel: 70 } })],
  },
  {
    name: 'panic button',
    type: RULE_TYPES.panic,
    rule: () => ({ settings: { parameter: 'panic' } }),
    messages: [
      [0, 0, { parameters: { panic: 0 } }],
      [10, 0, { parameters: { panic: 1 } }],
      [20, 0, { parameters: { panic: 0 } }],
    ],
  },
  {
    name: 'connection loss and restoration',
    type: RULE_TYPES.connectionLoss,
    rule: () => ({ settings: { minutes: 5, notifyRestored: true } }),
    messages: [
      [0, 40],
      [60, 40],
      [1_000, 40],
    ],
    until: 2_000,
  },
  {
    name: 'discrete sensor',
    type: RULE_TYPES.discreteSensor,
    rule: () => ({ settings: { parameter: 'din1', edge: 'both' } }),
    messages: [
      [0, 0, { parameters: { din1: 0 } }],
      [10, 0, { parameters: { din1: 1 } }],
      [20, 0, { parameters: { din1: 0 } }],
    ],
  },
  {
    name: 'analog sensor',
    type: RULE_TYPES.analogSensor,
    rule: () => ({ settings: { parameter: 'ain1', max: 50 } }),
    messages: [
      [0, 0, { parameters: { ain1: 10 } }],
      [10, 0, { parameters: { ain1: 80 } }],
    ],
  },
  {
    name: 'address arrival and departure',
    type: RULE_TYPES.address,
    rule: () => ({ settings: { address: 'Depot gate, 1 Ring Road', ...INSIDE, radius: 100 } }),
    messages: [
      [0, 30, OUTSIDE],
      [60, 5, INSIDE],
      [120, 30, OUTSIDE],
    ],
  },
  {
    name: 'idle',
    type: RULE_TYPES.idle,
    rule: () => ({ settings: { minutes: 1 } }),
    messages: every(0, 90, 10, 0, { parameters: { ignition: 1 } }),
  },
  {
    name: 'maintenance',
    type: RULE_TYPES.maintenance,
    rule: () => ({ settings: { counter: 'mileage', interval: 1_000 } }),
    messages: [
      [0, 60, { parameters: { mileage: 990 } }],
      [30, 60, { parameters: { mileage: 995 } }],
      [60, 60, { parameters: { mileage: 1_001 } }],
      [120, 60, { parameters: { mileage: 1_002 } }],
    ],
  },
];

/** About 1.1 km north-east of OUTSIDE, and 1.7 km: a vehicle that drove off. */
const AWAY = { latitude: 55.74, longitude: 37.66 };
const FARTHER = { latitude: 55.745, longitude: 37.67 };

TYPE_CASES.push(
  {
    name: 'parking, and the end of the stop',
    type: RULE_TYPES.parking,
    rule: () => ({ settings: { minutes: 1, ignition: 'any', notifyEnd: true } }),
    messages: [...every(0, 90, 10, 0), [100, 40, AWAY], [110, 40, FARTHER]],
  },
  {
    name: 'continuous driving, warned before the limit',
    type: RULE_TYPES.continuousDriving,
    rule: () => ({ settings: { hours: 0.01, warnBefore: 0.25, restMinutes: 5 } }),
    messages: every(0, 60, 10, 50),
  },
  {
    name: 'device alarm: a harsh braking reported twice',
    type: RULE_TYPES.deviceAlarm,
    rule: () => ({ settings: {} }),
    messages: [
      [0, 40, { parameters: { io253: 0 } }],
      [10, 20, { parameters: { io253: 2 } }],
      [11, 10, { parameters: { io253: 2 } }],
      [20, 30, { parameters: { io253: 0 } }],
    ],
  },
  {
    name: 'movement after a stop',
    type: RULE_TYPES.movement,
    rule: () => ({ settings: { minStop: 1, distance: 100 } }),
    messages: [...every(0, 90, 10, 0), [100, 30, AWAY], [110, 30, FARTHER]],
  },
);

const OTHER_CASES: PreviewCase[] = [
  {
    name: 'speeding only inside a zone, driven inside',
    type: RULE_TYPES.speeding,
    rule: ({ zoneId }) => ({ settings: { limit: 90, minDuration: 10, zones: String(zoneId) } }),
    messages: SPEEDING_TRACE.map(([second, speed]) => [second, speed, INSIDE]),
  },
  {
    name: 'speeding only inside a zone, driven outside',
    type: RULE_TYPES.speeding,
    rule: ({ zoneId }) => ({ settings: { limit: 90, minDuration: 10, zones: String(zoneId) } }),
    messages: SPEEDING_TRACE,
    suppressed: [[20, 'outsideZones']],
  },
  {
    name: 'idling only outside a zone, idling inside',
    type: RULE_TYPES.idle,
    rule: ({ zoneId }) => ({ settings: { minutes: 1, zones: String(zoneId), zoneMode: 'outside' } }),
    messages: every(0, 90, 10, 0, { ...INSIDE, parameters: { ignition: 1 } }),
    suppressed: [[60, 'insideZones']],
  },
  {
    name: "speeding over every vehicle of the rule's client (scope client)",
    type: RULE_TYPES.speeding,
    rule: () => ({ vehicleIds: [], settings: { limit: 90, minDuration: 10, scope: 'client' } }),
    messages: SPEEDING_TRACE,
  },
  {
    name: "speeding in the owner's language and the rule's timezone",
    type: RULE_TYPES.speeding,
    rule: ({ russianUserId }) => ({ userId: russianUserId, timezone: 'Asia/Baku', settings: { limit: 90, minDuration: 10 } }),
    messages: SPEEDING_TRACE,
  },
  {
    name: 'speeding outside the schedule (a Sunday)',
    type: RULE_TYPES.speeding,
    rule: () => ({ timezone: 0, settings: { limit: 90, minDuration: 10, schedule: 'Mon-Fri 08:00-18:00' } }),
    messages: SPEEDING_TRACE,
    suppressed: [[20, 'outsideSchedule']],
  },
  {
    name: 'speeding episodes within the cooldown',
    type: RULE_TYPES.speeding,
    rule: () => ({ settings: { limit: 90, minDuration: 0, endDuration: 0, cooldown: 600 } }),
    messages: NOISY_TRACE,
    suppressed: [
      [60, 'cooldown'],
      [120, 'cooldown'],
    ],
  },
  {
    name: 'speeding episodes over maxPerDay, with its notice',
    type: RULE_TYPES.speeding,
    rule: () => ({ settings: { limit: 90, minDuration: 0, endDuration: 0, maxPerDay: 1 } }),
    messages: NOISY_TRACE,
    suppressed: [
      [60, 'maxPerDay'],
      [120, 'maxPerDay'],
    ],
  },
  {
    name: 'a speeding episode shorter than minDuration, then one that lasts',
    type: RULE_TYPES.speeding,
    rule: () => ({ settings: { limit: 90, minDuration: 30, endDuration: 0 } }),
    messages: [
      [0, 120],
      [10, 40],
      [20, 120],
      [40, 120],
      [60, 120],
    ],
    suppressed: [[10, 'belowMinDuration']],
  },
  {
    name: 'speeding of a vehicle a maintenance silence holds back',
    type: RULE_TYPES.speeding,
    rule: () => ({ settings: { limit: 90, minDuration: 10 } }),
    messages: SPEEDING_TRACE,
    silencedSeconds: 3_600,
    suppressed: [[20, 'silenced']],
  },
  {
    name: 'a late message',
    type: RULE_TYPES.speeding,
    rule: () => ({ settings: { limit: 90, minDuration: 10 } }),
    messages: [...SPEEDING_TRACE, [15, 130, { serverTime: new Date(START + 40_000).toISOString() }]],
    suppressed: [[15, 'staleMessage']],
  },
  {
    // the terminal stored the episode while out of coverage and sent it an hour later, with a current reading
    name: "a black box: an hour-old episode is tooOld, the vehicle's next one alerts",
    type: RULE_TYPES.speeding,
    rule: () => ({ settings: { limit: 90, minDuration: 10 } }),
    messages: [
      ...SPEEDING_TRACE.map(([second, speed]): Step => [second, speed, { serverTime: new Date(START + 3_600_000).toISOString() }]),
      [3_600, 120],
      [3_615, 130],
    ],
    suppressed: [[20, 'tooOld', 3_580]],
  },
  {
    name: 'a black box under a rule that takes messages of any age (maxEventAge 0)',
    type: RULE_TYPES.speeding,
    rule: () => ({ settings: { limit: 90, minDuration: 10, maxEventAge: 0 } }),
    messages: SPEEDING_TRACE.map(([second, speed]): Step => [second, speed, { serverTime: new Date(START + 3_600_000).toISOString() }]),
  },
];

const iso = (second: number) => new Date(START + second * 1000).toISOString();

describe('POST /api/v3/notifications/preview', () => {
  // each case clears the SES inbox itself, before its pipeline run
  const harness = useDeliverHarness({ name: 'api-preview', resetEach: false });
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  let fixture: Fixture;
  const tokens = { root: '', sibling: '', readOnly: '' };
  let nextVehicle = 5_000;

  // the bodies include ones the API must refuse: the API checks them, not the compiler
  const preview = (body: object, token = tokens.root) =>
    api.POST('/api/v3/notifications/preview', { headers: session(token), body: body as JsonBody<'previewNotificationRule'> });

  /** A vehicle of its own for each case, registered to the root client. */
  async function newVehicle(): Promise<number> {
    const vehicleId = ++nextVehicle;
    await registerVehicle({ vehicleId, name: `Truck ${vehicleId}`, parentId: tenants.root.agentId }, { allowMove: true });
    return vehicleId;
  }

  const messagesOf = (vehicleId: number, steps: Step[]): TerminalMessageInput[] =>
    steps.map(([second, speed, extra]) => ({ vehicleId, deviceTime: iso(second), ...OUTSIDE, speed, ...extra }));

  function ruleFor(testCase: PreviewCase, vehicleId: number): Record<string, unknown> {
    return ruleBody(tenants.root.agentId, { type: testCase.type, vehicleIds: [vehicleId], sideEmails: [SIDE_EMAIL], ...testCase.rule(fixture) });
  }

  /** A maintenance silence of the root client over the vehicle, from START for `seconds`. */
  async function silence(vehicleId: number, seconds: number): Promise<string> {
    const created = await api.POST('/api/v3/silences', {
      headers: session(tokens.root),
      body: { parentId: tenants.root.agentId, vehicleIds: [vehicleId], from: iso(0), to: iso(seconds), reason: 'in the workshop' },
    });
    expect(created.response.status).toBe(200);
    return created.data!.id;
  }

  /**
   * The rule stored through the API and projected, the messages evaluated at their arrival (the sweep run first),
   * the sweep run at `until`, the alerts delivered: what the alerts table holds and the e-mails SES received.
   */
  async function throughPipeline(rule: Record<string, unknown>, messages: TerminalMessageInput[], until: number) {
    const created = await api.POST('/api/v3/notifications', { headers: session(tokens.root), body: rule as JsonBody<'createNotificationRule'> });
    expect(created.response.status).toBe(200);
    const stored = (await getRule(created.data!.id))!;
    await projectRuleChange(undefined, stored);
    await clearSentEmails(harness.emulators);

    let now = 0;
    const evaluate = createEvaluateHandler({ clock: () => now });
    const sweep = createSweepHandler({ clock: () => now });
    const arrivals = new Map<number, TerminalMessageInput[]>();
    for (const message of messages) {
      const arrival = Date.parse(message.serverTime ?? message.deviceTime);
      arrivals.set(arrival, [...(arrivals.get(arrival) ?? []), message]);
    }
    // the sweep runs once a minute, as its schedule does
    let swept = -Infinity;
    for (const [arrival, batch] of [...arrivals].sort(([a], [b]) => a - b)) {
      now = arrival;
      if (now - swept >= 60_000) {
        await sweep({}, lambdaContext('sweep'));
        swept = now;
      }
      expect(
        await invoke(
          evaluate,
          batch.map((message) => sqsRecord(message)),
        ),
      ).toEqual({ batchItemFailures: [] });
    }
    now = until;
    await sweep({}, lambdaContext('sweep'));
    await harness.drainDeliveries({ handler: deliver, rounds: 50, mustEmpty: true });

    // a silenced event is kept in the history, never delivered: not an alert anyone gets
    const alerts = (await alertsInTable())
      .filter((alert) => alert.ruleId === stored.id && alert.silenced === undefined)
      .map((alert) => alert.event as { kind: string; time: string })
      .map((event) => ({ time: event.time, event: event.kind }))
      .sort((a, b) => a.time.localeCompare(b.time));
    // the e-mail ends with its acknowledge link, signed for that alert and address: the preview answers the text before it
    const texts = (await sentEmails(harness.emulators)).map((email) => (email.body.text ?? '').replace(ACKNOWLEDGE_TRAILER, '')).sort();
    // a scoped rule would otherwise watch the vehicles of the cases after this one
    expect(
      (await api.DELETE('/api/v3/notifications/{id}', { headers: session(tokens.root), params: { path: { id: stored.id } } })).response.status,
    ).toBe(200);
    await projectRuleChange(stored, undefined);
    return { alerts, texts };
  }

  beforeAll(async () => {
    tenants = await seedTenants('preview');
    api = typedApiClient({ now: clock.now });
    tokens.root = await login(api, tenants.root);
    tokens.sibling = await login(api, tenants.sibling);
    tokens.readOnly = await login(api, tenants.readOnly);
    const zone = await api.POST('/api/v3/gis', {
      headers: session(tokens.root),
      body: depotZoneBody(tenants.root.agentId) as JsonBody<'createGeozone'>,
    });
    expect(zone.response.status).toBe(200);
    const russian = await createUser({
      parentId: tenants.root.agentId,
      login: 'preview-ru',
      password: 'pw-preview-ru',
      email: 'ru@preview.example.com',
      language: 1,
    });
    fixture = { zoneId: zone.data!.id, russianUserId: russian.id };
    await confirmSideEmails(tenants.root.agentId, [SIDE_EMAIL]);
  });

  it('has a case for every rule type', () => {
    expect(new Set(TYPE_CASES.map((testCase) => testCase.type))).toEqual(new Set(Object.values(RULE_TYPES)));
  });

  describe.each([...TYPE_CASES, ...OTHER_CASES])('$name (type $type)', (testCase) => {
    it('answers what the pipeline delivers for the same messages, with the text of its e-mail', async () => {
      const vehicleId = await newVehicle();
      const rule = ruleFor(testCase, vehicleId);
      const messages = messagesOf(vehicleId, testCase.messages);
      const newest = Math.max(...messages.map((message) => Date.parse(message.serverTime ?? message.deviceTime)));
      const until = testCase.until === undefined ? newest : START + testCase.until * 1000;
      const silenceId = testCase.silencedSeconds === undefined ? undefined : await silence(vehicleId, testCase.silencedSeconds);

      // sent in reverse: the preview takes messages in any order
      const answer = await preview({
        rule,
        messages: [...messages].reverse(),
        ...(testCase.until === undefined ? {} : { until: iso(testCase.until) }),
      });
      expect(answer.response.status).toBe(200);
      const delivered = await throughPipeline(rule, messages, until);

      expect(
        answer.data!.alerts.map(({ vehicleId: vehicle, time, event }) => ({
          vehicle,
          time,
          event,
        })),
      ).toEqual(delivered.alerts.map((alert) => ({ vehicle: vehicleId, ...alert })));
      expect(answer.data!.alerts.map((alert) => alert.text).sort()).toEqual(delivered.texts);
      for (const alert of answer.data!.alerts) expect(alert.type).toBe(testCase.type);
      if (testCase.suppressed) {
        // at a suppressed time the pipeline delivered nothing but the day's limitReached notice
        const held = new Set(testCase.suppressed.map(([second]) => iso(second)));
        expect(delivered.alerts.filter((alert) => held.has(alert.time) && alert.event !== 'limitReached')).toEqual([]);
        expect(answer.data!.suppressed).toEqual(
          testCase.suppressed.map(([second, reason, age]) => ({
            vehicleId,
            time: iso(second),
            reason,
            ...(age === undefined ? {} : { age }),
            ...(reason === 'silenced' ? { silenceId } : {}),
          })),
        );
      } else {
        expect(delivered.alerts.length).toBeGreaterThan(0);
      }
    });
  });

  it('ages every message at evaluatedAt when given, instead of at its arrival', async () => {
    const vehicleId = await newVehicle();
    const speeding = (settings: Record<string, unknown> = {}) =>
      ruleBody(tenants.root.agentId, { vehicleIds: [vehicleId], settings: { limit: 90, minDuration: 10, ...settings } });
    // each message arrives when it is read: current as the pipeline would judge it
    const messages = messagesOf(vehicleId, [...SPEEDING_TRACE, [300, 50], [340, 50], [350, 120], [365, 130]]);
    const asSent = await preview({ rule: speeding(), messages });
    expect(asSent.data!.alerts.map((alert) => [alert.time, alert.event])).toEqual([
      [iso(20), 'speeding'],
      [iso(365), 'speeding'],
    ]);
    expect(asSent.data!.suppressed).toEqual([]);

    // as if the whole track were sent 20 minutes after its start: the first episode is then 1180 s old, the second 835 s
    const later = await preview({ rule: speeding(), messages, evaluatedAt: iso(1_200) });
    expect(later.response.status).toBe(200);
    expect(later.data!.alerts.map((alert) => [alert.time, alert.event])).toEqual([[iso(365), 'speeding']]);
    expect(later.data!.suppressed).toEqual([{ vehicleId, time: iso(20), reason: 'tooOld', age: 1_180 }]);
    // the rule's own maxEventAge against it
    const strict = await preview({ rule: speeding({ maxEventAge: 600 }), messages, evaluatedAt: iso(1_200) });
    expect(strict.data!.alerts).toEqual([]);
    expect(strict.data!.suppressed.map((entry) => [entry.time, entry.reason, entry.age])).toEqual([
      [iso(20), 'tooOld', 1_180],
      [iso(365), 'tooOld', 835],
    ]);
    const lenient = await preview({ rule: speeding({ maxEventAge: 0 }), messages, evaluatedAt: iso(1_200) });
    expect(lenient.data!.alerts).toHaveLength(2);

    const unreadable = await preview({ rule: speeding(), messages, evaluatedAt: 'later' });
    expect(unreadable.response.status).toBe(400);
    expect(unreadable.error?.issues?.map((issue) => issue.path)).toEqual(['evaluatedAt']);
  });

  it("reports what recipients' quiet hours and least severities would do to each alert, judged when it is raised", async () => {
    const vehicleId = await newVehicle();
    // START is 08:01 UTC: the sleeper's quiet hours (UTC) hold it until 09:00, the picky one takes only critical e-mail
    const sleeper = await createUser({
      parentId: tenants.root.agentId,
      login: 'preview-sleeper',
      password: 'pw-preview-sleeper',
      email: 'sleeper@preview.example.com',
    });
    const picky = await createUser({
      parentId: tenants.root.agentId,
      login: 'preview-picky',
      password: 'pw-preview-picky',
      email: 'picky@preview.example.com',
    });
    const prefer = async (userId: string, preferences: Record<string, unknown>) => {
      const body = preferences as JsonBody<'replaceUserPreferences'>;
      const answer = await api.PUT('/api/v3/users/{id}/preferences', { headers: session(tokens.root), params: { path: { id: userId } }, body });
      expect(answer.response.status).toBe(200);
    };
    await prefer(sleeper.id, { quietHours: { from: '08:00', to: '09:00', timezone: 'UTC' } });
    await prefer(picky.id, { minSeverity: { email: 'critical' } });
    const speeding = (settings: Record<string, unknown> = {}) =>
      ruleBody(tenants.root.agentId, {
        vehicleIds: [vehicleId],
        settings: { limit: 90, ...settings },
        recipientIds: [sleeper.id, picky.id],
        toEmail: true,
        toMobile: true,
        enableSideEmails: false,
        sideEmails: [],
      });
    const messages = messagesOf(vehicleId, SPEEDING_TRACE);

    const warning = await preview({ rule: speeding(), messages });
    expect(warning.response.status).toBe(200);
    expect(warning.data!.alerts.map((alert) => [alert.event, alert.severity])).toEqual([['speeding', 'warning']]);
    const until = '2026-03-01T09:00:00.000Z';
    expect(warning.data!.alerts[0]!.preferences).toEqual([
      { userId: sleeper.id, login: 'preview-sleeper', channel: 'email', reason: 'quietHours', until },
      { userId: sleeper.id, login: 'preview-sleeper', channel: 'push', reason: 'quietHours', until },
      { userId: picky.id, login: 'preview-picky', channel: 'email', reason: 'minSeverity' },
    ]);

    // a critical alert goes through quiet hours and reaches the picky user's e-mail
    const critical = await preview({ rule: speeding({ severity: 'critical' }), messages });
    expect(critical.data!.alerts.map((alert) => [alert.severity, alert.preferences])).toEqual([['critical', []]]);

    // judged at evaluatedAt when given: after 09:00 the quiet hours are over (the track aged without a limit)
    const morning = await preview({ rule: speeding({ maxEventAge: 0 }), messages, evaluatedAt: '2026-03-01T09:00:00.000Z' });
    expect(morning.data!.alerts[0]!.preferences.map((entry) => [entry.login, entry.channel, entry.reason])).toEqual([
      ['preview-picky', 'email', 'minSeverity'],
    ]);
  });

  it('writes, sends and journals nothing, and read-only users may preview', async () => {
    const vehicleId = await newVehicle();
    const tables = resourcesConfig();
    const stored = [tables.ALERTS_TABLE, tables.VISITS_TABLE, tables.VEHICLE_STATE_TABLE, tables.RULES_TABLE];
    const before = await Promise.all(stored.map(scanTable));
    const rule = ruleFor({ ...TYPE_CASES[0]!, name: 'zone' }, vehicleId);
    const answer = await preview({ rule, messages: messagesOf(vehicleId, TYPE_CASES[0]!.messages) }, tokens.readOnly);
    expect(answer.response.status).toBe(200);
    expect(answer.data!.alerts.map((alert) => alert.event)).toEqual(['zoneEntry', 'zoneExit']);
    expect(await Promise.all(stored.map(scanTable))).toEqual(before);
    expect(await drainQueue(harness.emulators.queues.deliveries)).toEqual([]);
  });

  describe('errors', () => {
    const speedingRule = (overrides: Record<string, unknown> = {}) => ruleBody(tenants.root.agentId, { vehicleIds: [101], ...overrides });
    const message = (overrides: Record<string, unknown> = {}) => ({ vehicleId: 101, deviceTime: iso(0), ...OUTSIDE, speed: 50, ...overrides });
    const paths = (result: { error?: { issues?: { path: string }[] } }) => (result.error?.issues ?? []).map((issue) => issue.path).sort();

    it('answers 401 without a session', async () => {
      const response = await api.POST('/api/v3/notifications/preview', {
        body: { rule: speedingRule(), messages: [message()] } as JsonBody<'previewNotificationRule'>,
      });
      expect(response.response.status).toBe(401);
    });

    it('checks the rule as PUT does, naming rule.<field>', async () => {
      const response = await preview({
        rule: speedingRule({ settings: { limit: 'fast' }, recipientIds: ['00000000-0000-4000-8000-000000000000'] }),
        messages: [],
      });
      expect(response.response.status).toBe(400);
      expect(paths(response)).toEqual(['rule.settings.limit']);
      const references = await preview({
        rule: speedingRule({ recipientIds: ['00000000-0000-4000-8000-000000000000'], vehicleIds: [101, 202] }),
        messages: [],
      });
      expect(references.response.status).toBe(400);
      expect(paths(references)).toEqual(['rule.recipientIds.0', 'rule.vehicleIds.1']);
    });

    it("answers 404 for another tenant's client", async () => {
      const response = await preview({ rule: speedingRule({ parentId: tenants.sibling.agentId }), messages: [] });
      expect(response.response.status).toBe(404);
    });

    it("names each bad message field, and each message of a vehicle outside the rule's", async () => {
      const response = await preview({
        rule: speedingRule(),
        messages: [message(), message({ speed: -5 }), message({ vehicleId: 303 }), message({ deviceTime: 'yesterday' })],
      });
      expect(response.response.status).toBe(400);
      expect(paths(response)).toEqual(['messages.1.speed', 'messages.3.deviceTime']);
      const foreign = await preview({ rule: speedingRule(), messages: [message(), message({ vehicleId: 202 }), message({ vehicleId: 303 })] });
      expect(foreign.response.status).toBe(400);
      expect(paths(foreign)).toEqual(['messages.1.vehicleId', 'messages.2.vehicleId']);
    });

    it('refuses a message from the future of its arrival, and an until before an arrival', async () => {
      const response = await preview({
        rule: speedingRule(),
        messages: [
          message({ serverTime: iso(0), deviceTime: iso(3_600) }),
          message({ deviceTime: iso(60) }),
          message({ serverTime: iso(0), previousDeviceTime: iso(3_600) }),
        ],
        until: iso(30),
      });
      expect(response.response.status).toBe(400);
      expect(paths(response)).toEqual(['messages.0.deviceTime', 'messages.2.previousDeviceTime', 'until']);
    });

    it('refuses more than 10,000 messages', async () => {
      const response = await preview({
        rule: speedingRule(),
        messages: Array.from({ length: 10_001 }, (_, index) => message({ deviceTime: iso(index) })),
      });
      expect(response.response.status).toBe(400);
      expect(paths(response)).toEqual(['messages']);
    });
  });
});
