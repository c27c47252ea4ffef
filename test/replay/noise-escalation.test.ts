import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { logger } from '../../shared/observability/logger';
import { escalationIdFor } from '../../shared/store/alert-id';
import { clearSentEmails } from '../support/emulators';
import { startReplayChannels, type ReplayChannels } from '../support/replay-check';
import { startReplayEmulators } from '../support/replay-emulators';
import { describeVerdict, judgeAlerts, judgeEmails, judgeTelegrams } from '../support/replay-oracle';
import { captureOutput } from '../support/replay-output';
import { REPLAY_CHAT_ID, runReplay, seedReplay, SIDE_EMAIL, type RuleOverrides, type StoredAlert } from '../support/replay-runner';
import { planReplay } from '../support/replay-scenarios';
import { generateTrace, REPLAY_RULE_IDS, REPLAY_SETTINGS, SMALL_TRACE, type Trace } from '../support/trace-generator';

/**
 * Replay with the noise budget's reminders and escalations live: the small trace, every message delivered twice
 * (the duplicated scenario), through the real evaluate, deliver and sweep functions. The speeding rule stores
 * its alerts, reminds every minute while an episode lasts (its episodes end at the first message back at or
 * under limit − endMargin: endDuration 0); it, the idle, panic and connection loss rules escalate an alert
 * nobody acknowledged after 2 minutes, to the rules' own side address and chat. Nobody acknowledges, so every
 * alert of those rules (from the generator's expected list) is escalated, once; reminders never are.
 */
const REPEAT_MS = 60_000;
const ESCALATION = { escalateAfter: '2', escalateEmails: SIDE_EMAIL, escalateTelegrams: REPLAY_CHAT_ID };
/** Rules whose alerts are escalated: each of their alerts is owed one escalation. */
const ESCALATING = ['speeding', 'idle', 'panic', 'connectionLoss'] as const;
const OVERRIDES: RuleOverrides = {
  speeding: { stored: true, settings: { endDuration: '0', repeat: String(REPEAT_MS / 60_000), ...ESCALATION } },
  idle: { stored: true, settings: ESCALATION },
  panic: { stored: true, settings: ESCALATION },
  connectionLoss: { stored: true, settings: ESCALATION },
};

const trace = generateTrace(SMALL_TRACE);

/**
 * The reminders the trace's speeding episodes owe, read from the planted messages as the settings define an
 * episode: it starts above the limit and alerts once above it for minDuration; it lasts while the speed stays
 * above limit − endMargin and no gap exceeds maxGap; a reminder comes with the first message `repeat` after
 * the alert or the last reminder. Key: vehicle and message time.
 */
function expectedReminders(source: Trace): string[] {
  const limit = Number(REPLAY_SETTINGS.speeding.limit);
  const endSpeed = limit - Number(REPLAY_SETTINGS.speeding.endMargin);
  const minDuration = Number(REPLAY_SETTINGS.speeding.minDuration) * 1000;
  const maxGap = 300_000;
  const reminders: string[] = [];
  for (const vehicle of source.vehicles) {
    let start: number | null = null;
    let last = 0;
    let remindedAt: number | null = null;
    for (const message of vehicle.messages) {
      const time = Date.parse(message.deviceTime);
      const speed = message.speed ?? 0;
      if (time - last > maxGap) {
        start = null;
        remindedAt = null;
      }
      last = time;
      if (remindedAt === null) {
        if (speed <= limit) start = null;
        else if (start === null) start = time;
        if (start !== null && time - start >= minDuration) remindedAt = time;
        continue;
      }
      if (speed <= endSpeed) {
        start = null;
        remindedAt = null;
      } else if (time >= remindedAt + REPEAT_MS) {
        reminders.push(`${vehicle.vehicleId}@${new Date(time).toISOString()}`);
        remindedAt = time;
      }
    }
  }
  return reminders;
}

const keyOf = (alert: StoredAlert) => `${alert.vehicleId}@${new Date(alert.time).toISOString()}`;
const duplicatesOf = (keys: readonly string[]) => keys.filter((key, index) => keys.indexOf(key) !== index);

describe('replay with reminders and escalations live', () => {
  let emulators: Emulators;
  let channels: ReplayChannels;
  beforeAll(async () => {
    emulators = await startReplayEmulators('replay-noise-escalation', 'duplicated');
    channels = await startReplayChannels();
  });
  afterAll(async () => {
    await channels?.stop();
    await emulators?.stop();
  });

  it('raises every alert, reminder and escalation once: 0 missing, 0 duplicated, each e-mailed and sent to Telegram once', async () => {
    await seedReplay(trace, OVERRIDES);
    await clearSentEmails(emulators);
    channels.telegram.reset();
    const plan = planReplay(trace, 'duplicated', { batchSize: 100, seed: trace.options.seed + 1 });
    const output = captureOutput({ silent: true, keep: false });
    const level = logger.getLevelName();
    logger.setLogLevel('CRITICAL');
    const run = await runReplay(plan, trace, emulators).finally(() => {
      logger.setLogLevel(level);
      output.restore();
    });

    const isReminder = (alert: StoredAlert) => alert.kind === 'reminder';
    const isEscalation = (alert: StoredAlert) => alert.kind === 'escalated';
    const alerts = run.alerts.filter((alert) => !isReminder(alert) && !isEscalation(alert));
    const verdict = judgeAlerts(trace.expected, alerts);
    expect(verdict.missing, describeVerdict(verdict)).toEqual([]);
    expect(verdict.duplicated, describeVerdict(verdict)).toEqual([]);
    expect(verdict.unexpected, describeVerdict(verdict)).toEqual([]);

    // reminders: exactly those the planted episodes owe
    const expected = expectedReminders(trace);
    const reminders = run.alerts.filter(isReminder);
    expect(reminders.every((reminder) => reminder.ruleId === REPLAY_RULE_IDS.speeding)).toBe(true);
    const found = reminders.map(keyOf);
    const missingReminders = expected.filter((key) => !found.includes(key));
    const unexpectedReminders = found.filter((key) => !expected.includes(key));
    expect({ missing: missingReminders, duplicated: duplicatesOf(found), unexpected: unexpectedReminders }).toEqual({
      missing: [],
      duplicated: [],
      unexpected: [],
    });
    expect(expected.length).toBeGreaterThan(0);

    // escalations: one for each alert of an escalating rule (none acknowledged), none for a reminder or another rule's alert
    const ruleIds = new Set<number>(ESCALATING.map((name) => REPLAY_RULE_IDS[name]));
    const escalated = alerts.filter((alert) => ruleIds.has(alert.ruleId));
    const owed = escalated.map((alert) => escalationIdFor(alert.alertId)).sort();
    const escalations = run.alerts.filter(isEscalation);
    expect(escalated.length).toBe(trace.expected.filter((episode) => (ESCALATING as readonly string[]).includes(episode.rule)).length);
    expect(duplicatesOf(escalations.map((alert) => alert.alertId))).toEqual([]);
    expect(escalations.map((alert) => alert.alertId).sort()).toEqual(owed);
    expect(escalations.map((alert) => `${alert.ruleId}|${keyOf(alert)}`).sort()).toEqual(
      escalated.map((alert) => `${alert.ruleId}|${keyOf(alert)}`).sort(),
    );

    // every alert item (alerts, reminders, escalations) delivered and out of the outbox; one e-mail and one Telegram each
    expect(run.alerts.filter((alert) => alert.status !== 'delivered' || alert.outbox !== undefined)).toEqual([]);
    expect(run.emails).toHaveLength(run.alerts.length);
    expect(judgeEmails(run.alerts, run.emails, SIDE_EMAIL)).toEqual({ vehiclesWithWrongCount: [], misaddressed: 0, identical: 0, unattributed: 0 });
    const telegrams = channels.telegram.delivered();
    expect(telegrams).toHaveLength(run.alerts.length);
    expect(judgeTelegrams(run.alerts, telegrams, REPLAY_CHAT_ID)).toEqual({
      vehiclesWithWrongCount: [],
      misaddressed: 0,
      identical: 0,
      unattributed: 0,
    });
    const escalationMails = run.emails.filter((email) => email.subject.includes('not acknowledged in 2 min'));
    expect(escalationMails).toHaveLength(escalations.length);
    expect(plan.duplicatesInSameBatch + plan.duplicatesInLaterBatch).toBeGreaterThan(0);

    console.log(
      `replay with reminders and escalations: ${JSON.stringify({
        records: plan.records,
        alerts: alerts.length,
        reminders: { expected: expected.length, found: reminders.length, missing: missingReminders.length, duplicated: duplicatesOf(found).length },
        escalations: {
          expected: owed.length,
          found: escalations.length,
          missing: owed.filter((id) => !escalations.some((alert) => alert.alertId === id)).length,
          duplicated: duplicatesOf(escalations.map((alert) => alert.alertId)).length,
        },
        missing: verdict.missing.length,
        duplicated: verdict.duplicated.length,
        emails: run.emails.length,
        telegrams: telegrams.length,
        sweeps: run.sweeps,
      })}`,
    );
  }, 600_000);
});
