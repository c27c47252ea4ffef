import type { RuleEvent } from '../schemas/alert';
import { RULE_TYPES } from '../schemas/notification';
import type { CommonSettings } from '../rules/settings';
import type { CompiledRule } from '../rules/types';
import type { SuppressionReason } from '../schemas/suppression';
import { scheduleAdmits } from './schedule-gate';
import type { ZoneSuppression } from './zone-gate';

/** One evaluation that raised no alert, and why. `time`: the event's time, or the late message's device time. */
export interface Suppression {
  ruleId: number;
  time: string;
  reason: SuppressionReason;
  /** `tooOld` only: how old the message was when evaluated, whole seconds. */
  age?: number;
  /** The maintenance silence that held it back (reason `silenced`). */
  silenceId?: string;
}

/**
 * How old a message may be when evaluated (ms; 0: any age) before the events it raises are `tooOld`: the rule's
 * `settings.maxEventAge`, else the deployment's default (seconds). Connection loss is never aged: its events
 * say when messages stopped and started arriving, which a late reading does not make stale (the reading that
 * ends a dead zone is often an old one from the terminal's black box, and it must still restore the connection).
 */
export function maxEventAgeMs(compiled: CompiledRule, defaultSeconds: number): number {
  if (compiled.rule.type === RULE_TYPES.connectionLoss) return 0;
  return ((compiled.settings as Partial<CommonSettings>).maxEventAge ?? defaultSeconds) * 1000;
}

/** A message's age (ms) when it is too old for a rule's limit (maxEventAgeMs), else undefined. */
export function tooOldAge(limitMs: number, ageMs: number): number | undefined {
  return limitMs > 0 && ageMs > limitMs ? ageMs : undefined;
}

/** Why an event is held back before the noise budget: the reason, for `silenced` the silence, for `tooOld` the age. */
export interface Hold {
  reason: SuppressionReason;
  silenceId?: string;
  age?: number;
}

/**
 * Whether an event becomes an alert, as far as the schedule, the zone condition, maintenance silences and the
 * message's age go (in that order): null when it passes on to the noise budget, else why not. `zone` is the zone
 * condition's verdict at the event's position (zone-gate.ts), undefined when it holds or there is none; `silence`
 * finds the silence holding the event back, if any, and is asked only when the schedule and the zone let it
 * through; `age` is the message's age in seconds when it is too old (tooOldAge; never for time passing, the sweep's ticks).
 */
export function holdOf(
  compiled: CompiledRule,
  event: RuleEvent,
  zone?: ZoneSuppression,
  silence?: () => string | undefined,
  age?: number,
): Hold | null {
  if (!scheduleAdmits(compiled, event)) return { reason: 'outsideSchedule' };
  if (zone) return { reason: zone };
  const silenceId = silence?.();
  if (silenceId !== undefined) return { reason: 'silenced', silenceId };
  return age === undefined ? null : { reason: 'tooOld', age };
}

/** holdOf's reason alone. */
export function suppressionOf(
  compiled: CompiledRule,
  event: RuleEvent,
  zone?: ZoneSuppression,
  silence?: () => string | undefined,
  age?: number,
): SuppressionReason | null {
  return holdOf(compiled, event, zone, silence, age)?.reason ?? null;
}
