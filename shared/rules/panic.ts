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

/** Present only while the button is held: since when (device time, epoch ms). */
export interface PanicState {
  pressedSince: number;
}

/**
 * Alerts on the press (0 → 1). A press seen first, with no earlier reading, alerts too: a missed panic costs
 * more than a doubtful one. A late (out-of-order) message that shows the button pressed alerts on its own
 * unless it falls within the press already reported; being keyed by its own time, a redelivered copy of the
 * same message can only produce the same alert again.
 */
export const panicEvaluator: RuleEvaluator<PanicSettings, PanicState> = {
  type: RULE_TYPES.panic,
  settingsSchema: panicSettingsSchema,

  evaluate({ settings }, state, message) {
    const pressed = switchParameter(message, settings.parameter);
    if (pressed === undefined) return { state, events: NO_EVENTS };
    if (!pressed) return { state: undefined, events: NO_EVENTS };
    if (state !== undefined) return { state, events: NO_EVENTS };
    return {
      state: { pressedSince: deviceMs(message) },
      events: [messageEvent('panic', message, { parameter: settings.parameter })],
    };
  },

  evaluateStale({ settings }, state, message) {
    if (switchParameter(message, settings.parameter) !== true) return [];
    if (state !== undefined && state.pressedSince <= deviceMs(message)) return [];
    return [messageEvent('panic', message, { parameter: settings.parameter, late: true })];
  },
};
