import type { TerminalMessage } from '../schemas/terminal-message';
import { haversineMeters } from '../geo/measure';

/**
 * Where a vehicle stands (parking, movement). Standing is judged by the distance from the fix that began the
 * stop, not by the speed each fix reports: GPS drift wanders a few metres and reports speeds while the vehicle
 * stands still, and a towed vehicle may report none while it moves.
 */
export interface StopPoint {
  latitude: number;
  longitude: number;
  /** Device time of the fix that began the stop, epoch ms. */
  since: number;
  /** Device time of the last fix within reach of the point, epoch ms. */
  last: number;
  /** Fixes in a row beyond reach since `last`. */
  away: number;
}

/** `at` the point, `straying` beyond it for fewer fixes in a row than needed, or `left`. */
export type StopVerdict = 'at' | 'straying' | 'left';

export function stopAt(message: TerminalMessage, time: number): StopPoint {
  return { latitude: message.latitude, longitude: message.longitude, since: time, last: time, away: 0 };
}

/**
 * One fix of a stop: within `reach` metres of the point it is `at` the stop; beyond it, the vehicle has `left`
 * only once `fixes` fixes in a row lie beyond, so a lone stray fix ends nothing.
 */
export function followStop(
  stop: StopPoint,
  message: TerminalMessage,
  time: number,
  reach: number,
  fixes: number,
): { stop: StopPoint; verdict: StopVerdict; distance: number } {
  const distance = haversineMeters(stop.latitude, stop.longitude, message.latitude, message.longitude);
  if (distance <= reach) return { stop: { ...stop, last: time, away: 0 }, verdict: 'at', distance };
  const away = stop.away + 1;
  return { stop: { ...stop, away }, verdict: away >= fixes ? 'left' : 'straying', distance };
}
