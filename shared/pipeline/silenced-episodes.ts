import type { RuleEvent } from '../schemas/alert';
import type { CompiledRule, RuleEvaluator } from '../rules/types';
import type { SilencedEpisode } from '../schemas/vehicle-state';
import { silenceEndsAfter, type CompiledSilence } from './maintenance-silence';

/**
 * An episode (a lost connection, a vehicle outside its zone, …) whose alert a maintenance silence held back is
 * remembered in the rule's noise state (`z`, shared/schemas/vehicle-state.ts), and raised once, marked `afterSilence`, if it
 * still lasts when the silence no longer holds it: judged with the vehicle's next message, or, for a vehicle that
 * sends none, by the sweep at `c` (the vehicle's silence deadline follows it). An episode that ended meanwhile is
 * forgotten, so nothing of what the silence held back follows it but that one alert.
 *
 * `c` is the silence's end (its `to`, its end, or its window's closing), or sooner a recheck, so that a silence
 * ended early or deleted frees the episode within SILENCE_RECHECK_MS (and the silence cache's age) without a message.
 * Without a message the episode is raised at `c` itself, so a sweep repeated or run twice raises the same alert
 * (its id derives from the time); with a message, at the message's time. Either way the commit that raises it
 * forgets the episode under the item's version, so it is raised once.
 */
export const SILENCE_RECHECK_MS = 10 * 60_000;

/** When an episode the silence holds at `time` is next judged without a message. */
export function nextCheck(silence: CompiledSilence, time: number): number {
  return Math.max(time + 1, Math.min(silenceEndsAfter(silence, time), time + SILENCE_RECHECK_MS));
}

/** What to remember of an event the silence held back, when the rule's state now holds the episode it began. */
export function silencedEpisodeOf(
  compiled: CompiledRule,
  evaluator: RuleEvaluator,
  ruleState: unknown,
  event: RuleEvent,
  silence: CompiledSilence,
): SilencedEpisode | undefined {
  const episode = evaluator.episode?.(compiled, ruleState);
  if (episode === undefined || episode.kind !== event.kind) return undefined;
  return { s: episode.since, c: nextCheck(silence, Date.parse(event.time)), e: event };
}

export type SilencedEpisodeVerdict =
  { outcome: 'over' } | { outcome: 'held'; episode: SilencedEpisode } | { outcome: 'raise'; event: RuleEvent; episode: SilencedEpisode };

export interface JudgedAt {
  time: number;
  latitude: number | null;
  longitude: number | null;
  speed: number | null;
}

/** The episode's event raised anew at `at`, marked as coming after the silence. */
function afterSilence(episode: SilencedEpisode, at: JudgedAt): RuleEvent {
  return {
    ...episode.e,
    time: new Date(at.time).toISOString(),
    latitude: at.latitude ?? episode.e.latitude,
    longitude: at.longitude ?? episode.e.longitude,
    speed: at.speed ?? episode.e.speed,
    values: { ...episode.e.values, afterSilence: true },
  };
}

/** Whether the rule's state still holds the silenced episode. */
export function stillLasts(compiled: CompiledRule, evaluator: RuleEvaluator, ruleState: unknown, episode: SilencedEpisode): boolean {
  return evaluator.episode?.(compiled, ruleState)?.since === episode.s;
}

/**
 * A silenced episode judged with a message (at its time and position): over, still held (with when to look
 * again once that time passed), or to be raised now. `silenceAt` finds the silence holding the rule back at a time.
 */
export function judgeWithMessage(
  episode: SilencedEpisode,
  lasts: boolean,
  at: JudgedAt,
  silenceAt: (time: number) => CompiledSilence | undefined,
): SilencedEpisodeVerdict {
  if (!lasts) return { outcome: 'over' };
  const silence = silenceAt(at.time);
  if (silence === undefined) return { outcome: 'raise', event: afterSilence(episode, at), episode };
  return { outcome: 'held', episode: at.time >= episode.c ? { ...episode, c: nextCheck(silence, at.time) } : episode };
}

/**
 * A silenced episode judged by time passing, up to `now`: at each check time due, still held (the next one
 * follows), or raised at that check time, where the vehicle was last seen.
 */
export function judgeWithoutMessage(
  episode: SilencedEpisode,
  lasts: boolean,
  now: number,
  position: { latitude: number; longitude: number } | null,
  silenceAt: (time: number) => CompiledSilence | undefined,
): SilencedEpisodeVerdict {
  if (!lasts) return { outcome: 'over' };
  let check = episode.c;
  while (check <= now) {
    const silence = silenceAt(check);
    if (silence === undefined) {
      const at = { time: check, latitude: position?.latitude ?? null, longitude: position?.longitude ?? null, speed: null };
      return { outcome: 'raise', event: afterSilence(episode, at), episode };
    }
    check = nextCheck(silence, check);
  }
  return { outcome: 'held', episode: check === episode.c ? episode : { ...episode, c: check } };
}
