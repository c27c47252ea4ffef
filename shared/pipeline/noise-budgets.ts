import type { RuleEvent } from '../schemas/alert';
import type { NoiseState } from '../schemas/vehicle-state';
import type { CompiledRule, RuleEvaluator } from '../rules/types';
import type { Hold, Suppression } from './event-admission';
import type { SuppressionReason } from '../schemas/suppression';
import type { VehicleSilences } from './maintenance-silence';
import { silencedEpisodeOf, stillLasts, type SilencedEpisodeVerdict } from './silenced-episodes';
import {
  admitEvent,
  closeRun,
  episodeAlerted,
  episodeFollowUps,
  followsEpisodes,
  recordSuppression,
  tickReminder,
  type SuppressedLogEntry,
} from './noise-budget';

export interface RaisedEvent {
  rule: CompiledRule;
  event: RuleEvent;
}

export interface SilencedEvent extends RaisedEvent {
  silenceId: string;
}

/**
 * The rules' noise budgets over one evaluation: where an event that passed the schedule and the zone condition
 * is admitted or held (noise-budget.ts), and where suppressions are recorded.
 */
export class NoiseBudgets {
  readonly noise: Record<string, NoiseState> = {};
  readonly suppressed: Suppression[] = [];
  readonly log: SuppressedLogEntry[] = [];
  readonly silenced: SilencedEvent[] = [];

  constructor(
    previous: Record<string, NoiseState> | undefined,
    keep: (key: string) => boolean,
    private readonly events: RaisedEvent[],
  ) {
    for (const [key, value] of Object.entries(previous ?? {})) if (keep(key)) this.noise[key] = value;
  }

  private set(key: string, noise: NoiseState | undefined, closed?: SuppressedLogEntry): void {
    if (noise === undefined) delete this.noise[key];
    else this.noise[key] = noise;
    if (closed) this.log.push(closed);
  }

  /** `detail`: the maintenance silence of a `silenced` suppression, or the message's age (seconds) of a `tooOld` one. */
  suppress(compiled: CompiledRule, time: string, reason: SuppressionReason, detail?: string | number): void {
    const silenceId = reason === 'silenced' && typeof detail === 'string' ? detail : undefined;
    const age = reason === 'tooOld' && typeof detail === 'number' ? detail : undefined;
    this.suppressed.push({
      ruleId: compiled.rule.id,
      time,
      reason,
      ...(silenceId === undefined ? {} : { silenceId }),
      ...(age === undefined ? {} : { age }),
    });
    const key = String(compiled.rule.id);
    const recorded = recordSuppression(compiled.rule.id, this.noise[key], reason, Date.parse(time), silenceId ?? age);
    this.set(key, recorded.noise, recorded.closed);
  }

  /**
   * An event, with what the schedule, zone condition and maintenance silences and the message's age say of it (`held`: why it is held
   * back, if it is): true when it became an alert.
   */
  offer(compiled: CompiledRule, event: RuleEvent, held: Hold | null | undefined, cooled: boolean): boolean {
    if (held) {
      this.suppress(compiled, event.time, held.reason, held.silenceId ?? held.age);
      if (held.silenceId !== undefined) this.silenced.push({ rule: compiled, event, silenceId: held.silenceId });
      return false;
    }
    const key = String(compiled.rule.id);
    const admission = admitEvent(compiled, this.noise[key], event, cooled);
    this.set(key, admission.noise);
    if (admission.notice) this.events.push({ rule: compiled, event: admission.notice });
    if (admission.reason !== null) {
      this.suppress(compiled, event.time, admission.reason);
      return false;
    }
    const closed = closeRun(compiled.rule.id, this.noise[key]);
    this.set(key, closed.noise, closed.closed);
    this.events.push({ rule: compiled, event });
    return true;
  }

  /** After a current message or a tick moved a rule's state: its episode's bookkeeping, reminder or cleared message. */
  follow(
    compiled: CompiledRule,
    evaluator: RuleEvaluator,
    before: unknown,
    after: unknown,
    alertedAt: string | undefined,
    at: { time: number; latitude: number | null; longitude: number | null; speed: number | null },
    raised: boolean,
    held: (event: RuleEvent) => Hold | null | undefined,
  ): void {
    const key = String(compiled.rule.id);
    if (!evaluator.episode || (this.noise[key]?.e === undefined && !followsEpisodes(compiled))) return;
    const next = evaluator.episode(compiled, after);
    if (alertedAt !== undefined) {
      this.set(key, episodeAlerted(compiled, this.noise[key], next, Date.parse(alertedAt)));
      return;
    }
    const followed = episodeFollowUps(compiled, this.noise[key], evaluator.episode(compiled, before), next, at, raised);
    this.set(key, followed.noise);
    if (followed.event) this.offer(compiled, followed.event, held(followed.event), false);
  }

  /** Time passing over an alerted episode with no messages (a lost connection): its reminder when due. */
  remind(
    compiled: CompiledRule,
    evaluator: RuleEvaluator,
    ruleState: unknown,
    now: number,
    held: (event: RuleEvent) => Hold | null | undefined,
  ): void {
    const key = String(compiled.rule.id);
    if (!evaluator.episode || this.noise[key]?.e === undefined) return;
    const reminded = tickReminder(compiled, this.noise[key], evaluator.episode(compiled, ruleState), now);
    this.set(key, reminded.noise);
    if (reminded.event) this.offer(compiled, reminded.event, held(reminded.event), false);
  }

  /** The episode a maintenance silence holds back for the rule, if any. */
  silencedEpisode(compiled: CompiledRule): NonNullable<NoiseState['z']> | undefined {
    return this.noise[String(compiled.rule.id)]?.z;
  }

  private setSilencedEpisode(key: string, episode: NoiseState['z']): void {
    const { z: _previous, ...rest } = this.noise[key] ?? {};
    this.set(key, episode === undefined && Object.keys(rest).length === 0 ? undefined : { ...rest, ...(episode ? { z: episode } : {}) });
  }

  /** Remembers the episode a silenced event began, when the rule's state holds it (silenced-episodes.ts). */
  rememberSilenced(compiled: CompiledRule, evaluator: RuleEvaluator, ruleState: unknown, event: RuleEvent, silences: VehicleSilences): void {
    const held = this.silenced.findLast((entry) => entry.rule === compiled && entry.event === event);
    const silence = held && silences.silences.find((candidate) => candidate.id === held.silenceId);
    const episode = silence && silencedEpisodeOf(compiled, evaluator, ruleState, event, silence);
    if (episode) this.setSilencedEpisode(String(compiled.rule.id), episode);
  }

  /** Forgets a silenced episode the rule's state no longer holds: it ended while silenced, and owes nothing. */
  forgetEnded(compiled: CompiledRule, evaluator: RuleEvaluator, ruleState: unknown): void {
    const episode = this.silencedEpisode(compiled);
    if (episode && !stillLasts(compiled, evaluator, ruleState, episode)) this.setSilencedEpisode(String(compiled.rule.id), undefined);
  }

  /**
   * Acts on a silenced episode's verdict: forgotten when over, kept (maybe with a later check) while held, and
   * raised once when the silence no longer holds it, after which its reminders and cleared message follow it as
   * any alerted episode's.
   */
  settleSilenced(
    compiled: CompiledRule,
    evaluator: RuleEvaluator,
    ruleState: unknown,
    verdict: SilencedEpisodeVerdict,
    held: (event: RuleEvent) => Hold | null | undefined,
  ): void {
    const key = String(compiled.rule.id);
    if (verdict.outcome === 'held') return this.setSilencedEpisode(key, verdict.episode);
    this.setSilencedEpisode(key, undefined);
    if (verdict.outcome === 'over') return;
    if (this.offer(compiled, verdict.event, held(verdict.event), true))
      this.set(key, episodeAlerted(compiled, this.noise[key], evaluator.episode?.(compiled, ruleState), Date.parse(verdict.event.time)));
  }
}
