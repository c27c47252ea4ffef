import type { Geozone } from '../../shared/schemas/geozone';
import type { RuleEvent } from '../../shared/schemas/alert';
import type { StoredRule } from '../../shared/schemas/notification';
import type { TerminalMessage } from '../../shared/schemas/terminal-message';
import { ZoneIndex } from '../../shared/geo/zone-index';
import type { CompiledRule, EvaluationContext, RuleEvaluator } from '../../shared/rules/types';
import { T0, storedRule } from './fixtures';

export function compile<S, St>(evaluator: RuleEvaluator<S, St>, settings: Record<string, string>, rule: Partial<StoredRule> = {}): CompiledRule<S> {
  const stored = storedRule({ type: evaluator.type, settings, ...rule });
  return { rule: stored, settings: evaluator.settingsSchema.parse(stored.settings) };
}

export function context(zones: Geozone[] = [], now = T0): EvaluationContext {
  return { now, zones: new ZoneIndex(zones) };
}

export interface Run<St> {
  events: RuleEvent[];
  state: St | undefined;
}

/**
 * Feeds messages as the evaluate function does: in device-time order, stale ones (not newer than the last
 * processed) to evaluateStale. `batches` lists batch sizes; between batches the state goes through JSON,
 * as it does through DynamoDB.
 */
export function run<S, St>(
  evaluator: RuleEvaluator<S, St>,
  rule: CompiledRule<S>,
  messages: readonly TerminalMessage[],
  options: { context?: EvaluationContext; state?: St; batches?: readonly number[] } = {},
): Run<St> {
  const ctx = options.context ?? context();
  let state = options.state;
  let last = -Infinity;
  const events: RuleEvent[] = [];
  const cuts = new Set<number>();
  let position = 0;
  for (const size of options.batches ?? []) cuts.add((position += size));
  messages.forEach((message, i) => {
    if (cuts.has(i)) state = state === undefined ? undefined : (JSON.parse(JSON.stringify(state)) as St);
    const time = Date.parse(message.deviceTime);
    if (time <= last) {
      if (!evaluator.evaluateStale) return;
      const late = evaluator.evaluateStale(rule, state, message, ctx);
      state = late.state;
      events.push(...late.events);
      return;
    }
    last = time;
    const result = evaluator.evaluate(rule, state, message, ctx);
    state = result.state;
    events.push(...result.events);
  });
  return { events, state };
}

export const kinds = (events: readonly RuleEvent[]) => events.map((event) => event.kind);
export const times = (events: readonly RuleEvent[]) => events.map((event) => event.time);
