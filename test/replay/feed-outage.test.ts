import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import type { FeedOutageConfig } from '../../shared/config';
import { logger } from '../../shared/observability/logger';
import { PLATFORM_SCOPE } from '../../shared/store/feed-outages';
import { setVehicleOwners } from '../../shared/store/vehicle-state-store';
import { clearSentEmails } from '../support/emulators';
import { startReplayChannels, type ReplayChannels } from '../support/replay-check';
import { startReplayEmulators } from '../support/replay-emulators';
import { describeVerdict, judgeAlerts, judgeEmails } from '../support/replay-oracle';
import { captureOutput, metricSum } from '../support/replay-output';
import { REPLAY_PARENT_ID, runReplay, seedReplay, SIDE_EMAIL, type RuleOverrides, type StoredAlert } from '../support/replay-runner';
import { planReplay } from '../support/replay-scenarios';
import { generateOutageTrace, OUTAGE_FROM, OUTAGE_LIMIT_MINUTES, OUTAGE_TO, type OutageTraceOptions } from '../support/outage-trace';
import { REPLAY_RULE_IDS, TRACE_START, type ReplayRuleName } from '../support/trace-generator';

/**
 * Replay of an interrupted feed through the real evaluate, deliver and sweep functions against the emulators,
 * every message delivered twice (the duplicated scenario): the feed stops for 10 minutes, for the whole fleet
 * or for one client's vehicles, under a 5-minute connection-loss limit. The sweep raises one operations alarm,
 * holds the losses, raises none for the vehicles that report again, and reports each vehicle still silent once
 * after the feed is back; a few vehicles falling silent on their own are reported at once throughout. The
 * input queue's rate the sweep reads is the replay's own: records handed to evaluate per minute.
 */
const SETTINGS: FeedOutageConfig = { FEED_OUTAGE_SHARE: 0.5, FEED_OUTAGE_MIN_VEHICLES: 10, FEED_OUTAGE_GRACE_MINUTES: 5 };
const ONLY_CONNECTION_LOSS = Object.fromEntries(
  (Object.keys(REPLAY_RULE_IDS) as ReplayRuleName[]).map((name) => [
    name,
    name === 'connectionLoss' ? { settings: { minutes: String(OUTAGE_LIMIT_MINUTES) } } : { active: false },
  ]),
) as RuleOverrides;
/** The client below the replay's whose vehicles lose their feed in the per-client case. */
const CLIENT = '7a1e4c52-3b6d-4f8e-9a2b-1c0d3e5f7a9b';
const MINUTE = 60_000;

const CASES: { name: string; options: OutageTraceOptions; scope: string }[] = [
  {
    name: 'the whole feed',
    options: { seed: 20_261_126, vehicles: 30, interrupted: 30, lostForGood: 3, ordinary: 3, ordinaryFrom: TRACE_START + 2 * MINUTE },
    scope: PLATFORM_SCOPE,
  },
  {
    // the client's 12 of 40 vehicles, and 3 others silent meanwhile: the input rate falls by less than the share,
    // the client's cohort is all of its vehicles; the others are reported at once
    name: "one client's feed",
    options: { seed: 20_261_127, vehicles: 40, interrupted: 12, lostForGood: 3, ordinary: 3, ordinaryFrom: TRACE_START + 13 * MINUTE },
    scope: CLIENT,
  },
];

describe.each(CASES)('replay of an interrupted feed: $name', ({ name, options, scope }) => {
  let emulators: Emulators;
  let channels: ReplayChannels;
  beforeAll(async () => {
    emulators = await startReplayEmulators(`feed-outage-${scope === PLATFORM_SCOPE ? 'platform' : 'client'}`, 'duplicated');
    channels = await startReplayChannels();
  });
  afterAll(async () => {
    await channels?.stop();
    await emulators?.stop();
  });

  it('raises one operations alarm, no loss for a vehicle that reports again, and each real loss once: 0 missing, 0 duplicated', async () => {
    const trace = generateOutageTrace(options);
    await seedReplay(trace, ONLY_CONNECTION_LOSS);
    if (scope !== PLATFORM_SCOPE) for (const vehicleId of trace.interrupted) await setVehicleOwners(vehicleId, [CLIENT, REPLAY_PARENT_ID]);
    await clearSentEmails(emulators);
    channels.telegram.reset();
    const plan = planReplay(trace, 'duplicated', { batchSize: 100, seed: options.seed + 1 });
    const output = captureOutput({ silent: true });
    const level = logger.getLevelName();
    logger.setLogLevel('ERROR');
    const run = await runReplay(plan, trace, emulators, {}, { feedOutage: SETTINGS }).finally(() => {
      logger.setLogLevel(level);
      output.restore();
    });

    const verdict = judgeAlerts(trace.expected, run.alerts);
    expect(verdict.missing, describeVerdict(verdict)).toEqual([]);
    expect(verdict.duplicated, describeVerdict(verdict)).toEqual([]);
    expect(verdict.unexpected, describeVerdict(verdict)).toEqual([]);

    // one alarm: one outage recorded, one error line, one FeedOutagesBegun
    expect(run.feedOutagesBegun).toEqual([scope]);
    const lines = output.jsonLines();
    const alarms = lines.filter((line) => String(line.message).startsWith('feed interrupted'));
    expect(alarms.map((line) => line.scope)).toEqual([scope]);
    expect(metricSum(lines, 'FeedOutagesBegun')).toBe(1);
    expect(run.mostHeld).toBeGreaterThanOrEqual(SETTINGS.FEED_OUTAGE_MIN_VEHICLES);

    const losses = (vehicleIds: readonly number[]) =>
      run.alerts.filter((alert) => alert.kind === 'connectionLost' && vehicleIds.includes(alert.vehicleId) && alert.time < OUTAGE_TO + 5 * MINUTE);
    // the vehicles that reported again: no loss for the outage
    const resumed = trace.interrupted.filter((vehicleId) => !trace.lostForGood.includes(vehicleId) && !trace.ordinary.includes(vehicleId));
    expect(losses(resumed)).toEqual([]);
    // the vehicles lost during the outage: reported once each, after the feed came back
    const lost = losses(trace.lostForGood);
    expect(lost.map((alert) => alert.vehicleId).sort()).toEqual([...trace.lostForGood].sort());
    for (const alert of lost) expect(alert.createdAt, `vehicle ${alert.vehicleId}`).toBeGreaterThan(OUTAGE_TO);
    // the few falling silent on their own: reported at once, by the first sweeps after their limit
    const ordinary = run.alerts.filter((alert) => trace.ordinary.includes(alert.vehicleId) && alert.time < options.ordinaryFrom + 10 * MINUTE);
    expect(ordinary.filter((alert) => alert.kind === 'connectionLost')).toHaveLength(trace.ordinary.length);
    for (const alert of ordinary) expect(alert.createdAt - alert.time, named(alert)).toBeLessThanOrEqual(2 * MINUTE);
    // under a client's outage, the others' losses went out while it was held
    if (scope !== PLATFORM_SCOPE)
      for (const alert of ordinary.filter((alert) => alert.kind === 'connectionLost'))
        expect(alert.createdAt, named(alert)).toBeGreaterThan(OUTAGE_FROM + OUTAGE_LIMIT_MINUTES * MINUTE);

    // each alert delivered, one e-mail each
    expect(run.alerts.filter((alert) => alert.status !== 'delivered' || alert.outbox !== undefined)).toEqual([]);
    expect(run.emails).toHaveLength(run.alerts.length);
    expect(judgeEmails(run.alerts, run.emails, SIDE_EMAIL)).toEqual({ vehiclesWithWrongCount: [], misaddressed: 0, identical: 0, unattributed: 0 });

    console.log(
      `replay of an interrupted feed (${name}): ${JSON.stringify({
        records: plan.records,
        expected: trace.expected.length,
        alerts: run.alerts.length,
        mostHeld: run.mostHeld,
        lostForGood: lost.length,
        sweeps: run.sweeps,
      })}`,
    );
  }, 600_000);
});

const named = (alert: StoredAlert) => `${alert.kind} of vehicle ${alert.vehicleId} at ${new Date(alert.time).toISOString()}`;
