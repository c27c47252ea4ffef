import type { z } from 'zod';
import { RULE_TYPES } from '../schemas/notification';
import { NO_EVENTS, deviceMs, messageEvent, switchParameter } from './message-values';
import { parameterKeySetting, settingsMap } from './settings';
import type { RuleEvaluator } from './types';

export const panicSettingsSchema = settingsMap({
  /** Digital parameter of the panic button: 1 pressed, 0 released. */
  parameter: parameterKeySetting('panic'),
});

export type PanicSettings = z.infer<typeof panicSettingsSchema>;

/** Presses remembered so that late copies of their messages are recognised. */
const REMEMBERED_PRESSES = 8;
/** A late press this shortly (ms) before a known press is taken as the same press seen earlier. */
const SAME_PRESS_MS = 5 * 60_000;

export interface PanicState {
  /** Device time (epoch ms) of the press being held; null when released. */
  pressedSince: number | null;
  /** Recent finished presses as [pressed, released) device times, oldest first. */
  presses: [number, number][];
}

function knownPress(state: PanicState | undefined, time: number): boolean {
  if (state === undefined) return false;
  const covers = (from: number, to: number) => time >= from - SAME_PRESS_MS && time < to;
  if (state.pressedSince !== null && covers(state.pressedSince, Infinity)) return true;
  return state.presses.some(([from, to]) => covers(from, to));
}

/**
 * Alerts on the press (0 → 1). A press seen first, with no earlier reading, alerts too: a missed panic costs
 * more than a doubtful one. A late (out-of-order) message showing the button pressed alerts on its own unless
 * it belongs to a press already known (held at that time, or starting within five minutes after it); keyed by
 * its own time, a redelivered copy of the message that raised an alert can only produce that alert again.
 */
export const panicEvaluator: RuleEvaluator<PanicSettings, PanicState> = {
  type: RULE_TYPES.panic,
  settingsSchema: panicSettingsSchema,

  evaluate({ settings }, state, message) {
    const pressed = switchParameter(message, settings.parameter);
    if (pressed === undefined) return { state, events: NO_EVENTS };
    const held = state?.pressedSince ?? null;
    if (!pressed) {
      if (held === null) return { state, events: NO_EVENTS };
      const presses = [...state!.presses, [held, deviceMs(message)] as [number, number]].slice(-REMEMBERED_PRESSES);
      return { state: { pressedSince: null, presses }, events: NO_EVENTS };
    }
    if (held !== null) return { state, events: NO_EVENTS };
    return {
      state: { pressedSince: deviceMs(message), presses: state?.presses ?? [] },
      events: [messageEvent('panic', message, { parameter: settings.parameter })],
    };
  },

  evaluateStale({ settings }, state, message) {
    if (switchParameter(message, settings.parameter) !== true) return NO_EVENTS;
    if (knownPress(state, deviceMs(message))) return NO_EVENTS;
    return [messageEvent('panic', message, { parameter: settings.parameter, late: true })];
  },
};
