import * as z from 'zod';
import type { RuleEvent } from '../schemas/alert';
import { RULE_TYPES } from '../schemas/notification';
import type { TerminalMessage } from '../schemas/terminal-message';
import { haversineMeters } from '../geo/measure';
import { NO_EVENTS, messageEvent, round } from './message-values';
import { enumSetting, numberSetting, onceReadable, optionalNumberSetting, settingsMap } from './settings';
import type { RuleEvaluator } from './types';
import type { TypeReference } from './reference';

/**
 * Type 10, address: arrival at and departure from a point (an address), a circle of `radius` metres around
 * `latitude`/`longitude`. The coordinates are what the rule works on; `address` is the text shown in
 * notifications and, where the installation has a geocoder, what the coordinates were found from when the rule
 * was written without them.
 */
export const addressSettingsSchema = settingsMap(() => ({
  address: z.string().max(500).default(''),
  latitude: optionalNumberSetting({ min: -90, max: 90 }),
  longitude: optionalNumberSetting({ min: -180, max: 180 }),
  /** Radius of the point, metres. */
  radius: numberSetting(100, { min: 10, max: 100_000 }),
  mode: enumSetting(['entry', 'exit', 'both'], 'both'),
  /** Hysteresis, metres: inside once `margin` within the circle, outside once `margin` beyond it (GPS jitter). */
  margin: numberSetting(20, { min: 0, max: 10_000 }),
}))
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

/** What the settings of type 10 mean and default to, for people (settings-reference.ts). */
export const addressReference: TypeReference = {
  name: 'address',
  events: 'addressArrival, addressDeparture',
  settings: [
    { key: 'address', default: '', meaning: 'the address as people write it (at most 500 characters); shown in notifications' },
    {
      key: 'latitude',
      default: null,
      meaning: 'latitude of the point (−90–90); found from address by the geocoder when left out, where the installation has one',
    },
    { key: 'longitude', default: null, meaning: 'longitude of the point (−180–180); found with latitude' },
    { key: 'radius', default: '100', meaning: 'metres around the point that count as at the address (10–100000)' },
    { key: 'mode', default: 'both', meaning: 'which alerts: entry (arrival), exit (departure) or both' },
    { key: 'margin', default: '20', meaning: 'hysteresis in metres around the circle against GPS jitter (0–10000)' },
  ],
  constraints: [
    'latitude and longitude go together',
    'address or the coordinates are required; without coordinates, an installation without a geocoder answers 400 asking for them',
    'margin must be smaller than radius',
  ],
  example: { address: 'Nizami 10, Baku', latitude: '40.3777', longitude: '49.8467' },
};
