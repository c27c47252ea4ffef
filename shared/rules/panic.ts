import type { z } from 'zod';
import { RULE_TYPES } from '../schemas/notification';
import { NO_EVENTS, deviceMs, messageEvent, switchParameter } from './message-values';
import { parameterKeySetting, settingsMap } from './settings';
import type { RuleEvaluator } from './types';
import type { TypeReference } from './reference';

export const panicSettingsSchema = settingsMap(() => ({
  /** Digital parameter of the panic button: 1 pressed, 0 released. */
  parameter: parameterKeySetting('panic'),
}));

export type PanicSettings = z.infer<typeof panicSettingsSchema>;

/** Presses remembered so that late copies of their messages are recognised. */
const REMEMBERED_PRESSES = 8;
/** A late press this close (ms) to a known press is taken as the same press. */
const SAME_PRESS_MS = 5 * 60_000;

type Span = [number, number];

export interface PanicState {
  /** Device time (epoch ms) of the press being held; null when released. */
  pressedSince: number | null;
  /** Recent finished presses as [pressed, released) device times, oldest first. */
  presses: Span[];
  /**
   * Presses known only from late (out-of-order) messages, as [first, last] device times of their pressed
   * readings, in the order they were learnt. Absent in states stored before late presses were remembered.
   */
  latePresses?: Span[];
}

function knownPress(state: PanicState | undefined, time: number): boolean {
  if (state === undefined) return false;
  const covers = (from: number, to: number) => time >= from - SAME_PRESS_MS && time < to;
  if (state.pressedSince !== null && covers(state.pressedSince, Infinity)) return true;
  return state.presses.some(([from, to]) => covers(from, to));
}

function latePressIndex(state: PanicState | undefined, time: number): number {
  return (state?.latePresses ?? []).findIndex(([first, last]) => time >= first - SAME_PRESS_MS && time <= last + SAME_PRESS_MS);
}

/**
 * Alerts on the press (0 → 1). A press seen first, with no earlier reading, alerts too: a missed panic costs
 * more than a doubtful one.
 *
 * A late (out-of-order) message showing the button pressed alerts on its own unless it belongs to a press
 * already known: held at that time or starting within five minutes after it, or another late press within
 * five minutes of it. Late presses are remembered (their span grows with each late reading of them), so a
 * held press whose messages all arrive after the release raises one alert, however the queue batches them.
 * Keyed by its own time, a redelivered copy of the message that raised an alert can only produce that alert
 * again.
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
      const presses = [...state!.presses, [held, deviceMs(message)] as Span].slice(-REMEMBERED_PRESSES);
      return { state: { ...state!, pressedSince: null, presses }, events: NO_EVENTS };
    }
    if (held !== null) return { state, events: NO_EVENTS };
    return {
      state: { ...state, pressedSince: deviceMs(message), presses: state?.presses ?? [] },
      events: [messageEvent('panic', message, { parameter: settings.parameter })],
    };
  },

  evaluateStale({ settings }, state, message) {
    if (switchParameter(message, settings.parameter) !== true) return { state, events: NO_EVENTS };
    const time = deviceMs(message);
    if (knownPress(state, time)) return { state, events: NO_EVENTS };
    const latePresses = state?.latePresses ?? [];
    const known = latePressIndex(state, time);
    if (known < 0) {
      const learnt = [...latePresses, [time, time] as Span].slice(-REMEMBERED_PRESSES);
      return {
        state: { pressedSince: null, presses: [], ...state, latePresses: learnt },
        events: [messageEvent('panic', message, { parameter: settings.parameter, late: true })],
      };
    }
    const [first, last] = latePresses[known]!;
    if (time >= first && time <= last) return { state, events: NO_EVENTS };
    const widened = latePresses.map((span, i): Span => (i === known ? [Math.min(first, time), Math.max(last, time)] : span));
    return { state: { pressedSince: null, presses: [], ...state, latePresses: widened }, events: NO_EVENTS };
  },
};

/** What the settings of type 6 mean and default to, for people (settings-reference.ts). */
export const panicReference: TypeReference = {
  name: 'panic button',
  events: 'panic',
  settings: [{ key: 'parameter', default: 'panic', meaning: 'digital parameter of the button (1 pressed, 0 released)' }],
  constraints: [],
  example: {},
};
