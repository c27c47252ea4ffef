import * as z from 'zod';
import type { RuleEvent } from '../schemas/alert';
import { RULE_TYPES } from '../schemas/notification';
import type { TerminalMessage } from '../schemas/terminal-message';
import { haversineMeters } from '../geo/measure';
import { NO_EVENTS, messageEvent, round } from './message-values';
import { enumSetting, numberSetting, onceReadable, optionalNumberSetting, settingsMap } from './settings';
import type { RuleEvaluator } from './types';

/**
 * Type 10, address: arrival at and departure from a point (an address), a circle of `radius` metres around
 * `latitude`/`longitude`. The coordinates are what the rule works on; `address` is the text shown in
 * notifications and, where the installation has a geocoder, what the coordinates were found from when the rule
 * was written without them.
 */
export const addressSettingsSchema = settingsMap({
  address: z.string().max(500).default(''),
  latitude: optionalNumberSetting({ min: -90, max: 90 }),
  longitude: optionalNumberSetting({ min: -180, max: 180 }),
  /** Radius of the point, metres. */
  radius: numberSetting(100, { min: 10, max: 100_000 }),
  mode: enumSetting(['entry', 'exit', 'both'], 'both'),
  /** Hysteresis, metres: inside once `margin` within the circle, outside once `margin` beyond it (GPS jitter). */
  margin: numberSetting(20, { min: 0, max: 10_000 }),
})
  .refine((settings) => (settings.latitude === undefined) === (settings.longitude === undefined), {
    path: ['latitude'],
    message: 'latitude and longitude go together: give both or neither',
    ...onceReadable,
  })
  .refine((settings) => settings.latitude !== undefined || settings.address.trim() !== '', {
    path: ['address'],
    message: 'an address, or the latitude and longitude of the point, is required',
    ...onceReadable,
  })
  .refine((settings) => settings.margin < settings.radius, { path: ['margin'], message: 'must be smaller than radius', ...onceReadable });

export type AddressSettings = z.infer<typeof addressSettingsSchema>;

/** Whether the vehicle is at the address. */
export interface AddressState {
  inside: boolean;
}

/** Whether settings can be evaluated: coordinates present (found by the geocoder or given). */
export function hasCoordinates(settings: AddressSettings): settings is AddressSettings & { latitude: number; longitude: number } {
  return settings.latitude !== undefined && settings.longitude !== undefined;
}

function addressEvent(kind: 'addressArrival' | 'addressDeparture', settings: AddressSettings, distance: number, message: TerminalMessage): RuleEvent {
  return messageEvent(kind, message, {
    address: settings.address.trim() === '' ? `${settings.latitude}, ${settings.longitude}` : settings.address.trim(),
    radius: settings.radius,
    distance: round(distance, 0),
  });
}

export const addressEvaluator: RuleEvaluator<AddressSettings, AddressState> = {
  type: RULE_TYPES.address,
  settingsSchema: addressSettingsSchema,

  evaluate({ settings }, state, message) {
    // a rule without coordinates is refused at write time and left out of evaluation (rule problems)
    if (!hasCoordinates(settings)) return { state, events: NO_EVENTS };
    const distance = haversineMeters(settings.latitude, settings.longitude, message.latitude, message.longitude);
    // the first message only records where the vehicle is
    if (state === undefined) return { state: { inside: distance <= settings.radius }, events: NO_EVENTS };
    if (state.inside) {
      if (distance <= settings.radius + settings.margin) return { state, events: NO_EVENTS };
      return {
        state: { inside: false },
        events: settings.mode === 'entry' ? NO_EVENTS : [addressEvent('addressDeparture', settings, distance, message)],
      };
    }
    if (distance > settings.radius - settings.margin) return { state, events: NO_EVENTS };
    return { state: { inside: true }, events: settings.mode === 'exit' ? NO_EVENTS : [addressEvent('addressArrival', settings, distance, message)] };
  },
};
