import type { RuleEvent } from '../schemas/alert';
import type { CommonSettings } from '../rules/settings';
import { zoneClock } from '../rules/time-zone';
import type { CompiledRule, Episode } from '../rules/types';
import type { NoiseState } from '../schemas/vehicle-state';
import { SUPPRESSION_REASONS, type SuppressionReason } from '../schemas/suppression';

/**
 * A rule's noise budget per vehicle (`cooldown`, `maxPerDay`, `repeat`, `notifyCleared`), decided here, purely:
 * the evaluate and sweep functions and the preview all ask these functions, with the counters kept in the
 * vehicle's item (`noise`, noiseStateSchema), so they cost no write of their own: they change only with an
 * alert or a suppression, which change the item anyway. A message is evaluated once as current (older ones are
 * stale and raise no episode), so the counters move once per alert, however often the message is delivered.
 *
 * - `cooldown`: after an alert, the rule's further alerts for the vehicle are held for that many seconds.
 * - `maxPerDay`: alerts counted per local day in the rule's timezone; the first one over the cap is replaced by
 *   one `limitReached` notice saying when alerts resume, the rest of the day's are held.
 * - `repeat`: a `reminder` every that many minutes while an alerted episode lasts, raised by the vehicle's next
 *   message once the interval has passed, or for a lost connection by the sweep (the vehicle's silence deadline).
 * - `notifyCleared`: a `cleared` message when an alerted episode ends (unless the evaluator raised its own,
 *   `connectionRestored` or `parkingEnded`).
 * Reminders count towards `maxPerDay` but not `cooldown`; notices and `cleared` messages count towards neither.
 */
type NoiseSettings = Pick<Partial<CommonSettings>, 'cooldown' | 'maxPerDay' | 'repeat' | 'notifyCleared'>;

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** Entries kept in a (vehicle, rule) suppressed log: runs of one reason, oldest overwritten first. */
export const SUPPRESSED_LOG_SLOTS = 16;

const settingsOf = (compiled: CompiledRule): NoiseSettings => compiled.settings as NoiseSettings;
const iso = (ms: number) => new Date(ms).toISOString();

/** Whether the rule keeps episodes for reminders or cleared messages. */
export function followsEpisodes(compiled: CompiledRule): boolean {
  const settings = settingsOf(compiled);
  return (settings.repeat ?? 0) > 0 || settings.notifyCleared === true;
}

/** The noise state without empty fields; undefined when nothing is left. */
function compact(noise: NoiseState): NoiseState | undefined {
  const kept = Object.fromEntries(Object.entries(noise).filter(([, value]) => value !== undefined)) as NoiseState;
  return Object.keys(kept).length === 0 ? undefined : kept;
}

/** The local day (days since the epoch in the rule's timezone) of an instant, and when the next one starts. */
function localDay(compiled: CompiledRule, time: number): { day: number; next: number } {
  const clock = zoneClock(compiled.rule.timezone);
  const day = Math.floor((time + clock.offsetAt(time)) / DAY_MS);
  const guess = (day + 1) * DAY_MS - clock.offsetAt(time);
  return { day, next: (day + 1) * DAY_MS - clock.offsetAt(guess) };
}

export interface Admission {
  noise: NoiseState | undefined;
  /** Why the event is held; null: it becomes an alert. */
  reason: Extract<SuppressionReason, 'cooldown' | 'maxPerDay'> | null;
  /** The one `limitReached` notice of the day, raised instead of the first event over the cap. */
  notice?: RuleEvent;
}

/**
 * Whether an event that passed the schedule and the zone condition becomes an alert under the budget. `counted`:
 * whether the cooldown applies to it (an episode's own alert, not a reminder).
 */
export function admitEvent(compiled: CompiledRule, noise: NoiseState | undefined, event: RuleEvent, cooled = true): Admission {
  const settings = settingsOf(compiled);
  const cooldown = settings.cooldown ?? 0;
  const cap = settings.maxPerDay ?? 0;
  if (event.kind === 'cleared') return { noise, reason: null };
  const time = Date.parse(event.time);
  const next: NoiseState = { ...noise };
  if (cooled && cooldown > 0 && next.t !== undefined && time >= next.t && time < next.t + cooldown * 1000) return { noise, reason: 'cooldown' };
  if (cap > 0) {
    const { day, next: resumes } = localDay(compiled, time);
    // an event of a day before the counted one (a late panic press) is admitted without counting
    if (next.d === undefined || day > next.d) {
      next.d = day;
      next.n = 0;
    }
    if (day === next.d) {
      const count = next.n ?? 0;
      if (count > cap) return { noise, reason: 'maxPerDay' };
      if (count === cap) {
        next.n = cap + 1;
        const notice: RuleEvent = {
          kind: 'limitReached',
          time: event.time,
          latitude: event.latitude,
          longitude: event.longitude,
          speed: event.speed,
          values: { maxPerDay: cap, heldKind: event.kind, resumesAt: iso(resumes) },
        };
        return { noise: compact(next), reason: 'maxPerDay', notice };
      }
      next.n = count + 1;
    }
  }
  if (cooled && cooldown > 0) next.t = Math.max(next.t ?? time, time);
  return { noise: compact(next), reason: null };
}

/**
 * After an alert of the rule went out: remember the episode its state now holds, for its reminders and its
 * cleared message. With none (the alert ended the episode itself: `connectionRestored`, `parkingEnded`, a zone
 * entry), the episode followed so far is over, and owes nothing more.
 */
export function episodeAlerted(
  compiled: CompiledRule,
  noise: NoiseState | undefined,
  episode: Episode | undefined,
  time: number,
): NoiseState | undefined {
  if (episode === undefined || !followsEpisodes(compiled)) return compact({ ...noise, e: undefined, r: undefined });
  return compact({ ...noise, e: episode.since, r: time });
}

interface At {
  time: number;
  latitude: number | null;
  longitude: number | null;
  speed: number | null;
}

const followUp = (kind: 'reminder' | 'cleared', at: At, episodeKind: string, since: number, end: number): RuleEvent => ({
  kind,
  time: iso(at.time),
  latitude: at.latitude,
  longitude: at.longitude,
  speed: at.speed,
  // `episodeSince`, not `since`: the schedule judges a reminder or a cleared message by its own time
  values: { episodeKind, episodeSince: iso(since), durationMinutes: Math.max(0, Math.floor((end - since) / MINUTE_MS)) },
});

/**
 * What an alerted episode asks for after one current message moved the rule's state from `previous` to `next`:
 * a `cleared` message when it ended (none when the evaluator raised its own event with the message: `raised`),
 * a `reminder` when it lasts and `repeat` minutes have passed since its last alert or reminder.
 */
export function episodeFollowUps(
  compiled: CompiledRule,
  noise: NoiseState | undefined,
  previous: Episode | undefined,
  next: Episode | undefined,
  at: At,
  raised: boolean,
): { noise: NoiseState | undefined; event?: RuleEvent } {
  if (noise?.e === undefined) return { noise };
  const settings = settingsOf(compiled);
  if (next?.since !== noise.e) {
    const rest = compact({ ...noise, e: undefined, r: undefined });
    if (settings.notifyCleared !== true || raised) return { noise: rest };
    return { noise: rest, event: followUp('cleared', at, previous?.kind ?? next?.kind ?? '', noise.e, at.time) };
  }
  const repeat = (settings.repeat ?? 0) * MINUTE_MS;
  if (repeat === 0 || at.time < (noise.r ?? noise.e) + repeat) return { noise };
  return { noise: { ...noise, r: at.time }, event: followUp('reminder', at, next.kind, noise.e, at.time) };
}

/**
 * The reminder time passing raises for an episode with no messages (a lost connection): timed at the last due
 * slot (last alert or reminder + k × `repeat`), so a sweep repeated at any later moment raises the same one.
 */
export function tickReminder(
  compiled: CompiledRule,
  noise: NoiseState | undefined,
  episode: Episode | undefined,
  now: number,
): { noise: NoiseState | undefined; event?: RuleEvent } {
  const repeat = (settingsOf(compiled).repeat ?? 0) * MINUTE_MS;
  if (noise?.e === undefined || episode?.since !== noise.e || repeat === 0) return { noise };
  const last = noise.r ?? noise.e;
  if (now < last + repeat) return { noise };
  const slot = last + Math.floor((now - last) / repeat) * repeat;
  return {
    noise: { ...noise, r: slot },
    event: followUp('reminder', { time: slot, latitude: null, longitude: null, speed: null }, episode.kind, noise.e, slot),
  };
}

/** When time passing next owes the episode a reminder (epoch ms), or null. */
export function nextReminderAt(compiled: CompiledRule, noise: NoiseState | undefined): number | null {
  const repeat = (settingsOf(compiled).repeat ?? 0) * MINUTE_MS;
  if (noise?.e === undefined || repeat === 0) return null;
  return (noise.r ?? noise.e) + repeat;
}

/** A run of suppressions of one reason (and silence), as the suppressed log keeps it (times epoch ms). */
export interface SuppressedRun {
  reason: SuppressionReason;
  first: number;
  last: number;
  count: number;
  /** `tooOld` runs: the oldest message's age when evaluated, whole seconds. */
  age?: number;
  /** The maintenance silence of a `silenced` run. */
  silenceId?: string;
}

/** A closed run to write to the rule's suppressed log, at its slot. */
export interface SuppressedLogEntry extends SuppressedRun {
  ruleId: number;
  slot: number;
}

/** The run the state holds open, if any. */
export function openRun(noise: NoiseState | undefined): SuppressedRun | undefined {
  if (noise?.s === undefined) return undefined;
  const [code, first, last, count, detail] = noise.s;
  const reason = SUPPRESSION_REASONS[code];
  return reason === undefined ? undefined : { reason, first, last, count, ...runDetail(detail) };
}

/** Ends the open run (an alert went out, or another reason began): the entry to log, and the state without it. */
export function closeRun(ruleId: number, noise: NoiseState | undefined): { noise: NoiseState | undefined; closed?: SuppressedLogEntry } {
  const run = openRun(noise);
  if (run === undefined) return { noise };
  const slot = noise?.q ?? 0;
  return { noise: compact({ ...noise, s: undefined, q: slot + 1 }), closed: { ...run, ruleId, slot: slot % SUPPRESSED_LOG_SLOTS } };
}

/**
 * Records one suppression: a run of the same reason (and silence) grows in the state (no write of its own: a
 * suppressed event comes with a state change of its rule); another reason closes the open run, to be logged, and opens one.
 * `detail`: a `silenced` run's silence id (another silence opens another run), or a `tooOld` run's age in seconds
 * (the run keeps the greatest).
 */
export function recordSuppression(
  ruleId: number,
  noise: NoiseState | undefined,
  reason: SuppressionReason,
  time: number,
  detail?: string | number,
): { noise: NoiseState | undefined; closed?: SuppressedLogEntry } {
  const code = SUPPRESSION_REASONS.indexOf(reason);
  const run = noise?.s;
  if (run !== undefined && run[0] === code && (typeof detail !== 'string' || run[4] === detail)) {
    const kept = typeof detail === 'number' ? Math.max(typeof run[4] === 'number' ? run[4] : detail, detail) : run[4];
    return { noise: { ...noise, s: storedRun(code, Math.min(run[1], time), Math.max(run[2], time), run[3] + 1, kept) } };
  }
  const { noise: rest, closed } = closeRun(ruleId, noise);
  return { noise: { ...rest, s: storedRun(code, time, time, 1, detail) }, ...(closed ? { closed } : {}) };
}

/** A run as stored ([reason, first, last, count], and its detail only where there is one). */
export function storedRun(
  code: number,
  first: number,
  last: number,
  count: number,
  detail: string | number | undefined,
): NonNullable<NoiseState['s']> {
  return detail === undefined ? [code, first, last, count] : [code, first, last, count, detail];
}

/** A stored run's detail as the run answers it: a silence's id, or an age in seconds. */
export function runDetail(detail: string | number | undefined): { silenceId?: string; age?: number } {
  if (typeof detail === 'string') return { silenceId: detail };
  return detail === undefined ? {} : { age: detail };
}

/**
 * The noise state to compare when deciding whether an item is worth writing: without the open run, which rides
 * with the next write (a late duplicate alone writes nothing); a run closed (`q` moved) is worth one.
 */
export function withoutOpenRun(noise: Record<string, NoiseState> | undefined): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(noise ?? {})) {
    const { s: _open, ...rest } = value;
    if (Object.keys(rest).length > 0) result[key] = rest;
  }
  return result;
}
