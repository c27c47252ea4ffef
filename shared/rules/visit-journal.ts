import { haversineMeters } from '../geo/measure';
import type { TerminalMessage } from '../schemas/terminal-message';
import type { OpenVisit, VisitsState } from '../schemas/vehicle-state';
import { crossZones, type ZoneHysteresis } from './geozone';
import { deviceMs, numericParameter } from './message-values';
import type { EvaluationContext } from './types';

/**
 * The visit journal: every geozone of the vehicle owner's clients, watched by a rule or not, is tracked with the
 * hysteresis of a type 0 rule (both directions, 30 m margin, no dwell). Entries and exits become visit records,
 * never alerts. Pure: the state lives in the vehicle's item under `visits`.
 */
export const JOURNAL_SETTINGS: ZoneHysteresis = { margin: 30, minDwell: 0 };

/** The odometer reading a visit's distance prefers, km. */
export const MILEAGE_PARAMETER = 'mileage';

export interface VisitPoint {
  latitude: number;
  longitude: number;
}

/** An entry (no endDate yet) or a completed visit, as evaluation hands it to storage. */
export interface VisitRecord {
  zoneId: number;
  startDate: string;
  entry: VisitPoint;
  endDate?: string;
  exit?: VisitPoint;
  /** Seconds between entry and exit. */
  duration?: number;
  /** Metres travelled inside: odometer difference when both ends had `mileage`, else the stored path (lower bound). */
  distance?: number;
}

/** The zones and the lookup a vehicle's journal runs over. */
export interface Journal {
  zoneIds: readonly number[];
  context: EvaluationContext;
}

export const EMPTY_VISITS: VisitsState = Object.freeze({ zones: {}, open: {} }) as VisitsState;

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

function closeVisit(zoneId: number, open: OpenVisit, message: TerminalMessage, endMs: number): VisitRecord {
  const mileage = numericParameter(message, MILEAGE_PARAMETER);
  const byOdometer = open.mileage !== undefined && mileage !== undefined && mileage >= open.mileage ? (mileage - open.mileage) * 1000 : undefined;
  const byPath = open.path + haversineMeters(open.atLatitude, open.atLongitude, message.latitude, message.longitude);
  return {
    zoneId,
    startDate: open.startDate,
    entry: { latitude: open.latitude, longitude: open.longitude },
    endDate: new Date(endMs).toISOString(),
    exit: { latitude: message.latitude, longitude: message.longitude },
    duration: Math.max(0, Math.round((endMs - Date.parse(open.startDate)) / 1000)),
    distance: round(byOdometer ?? byPath, 1),
  };
}

/** One current (not stale) message through the journal: the new state and the visits it opened or closed. */
export function journalMessage(state: VisitsState, journal: Journal, message: TerminalMessage): { state: VisitsState; records: VisitRecord[] } {
  const crossing = crossZones(journal.zoneIds, JOURNAL_SETTINGS, { zones: state.zones }, message, journal.context);
  if (crossing === undefined) return { state, records: [] };
  const time = deviceMs(message);
  const open: Record<string, OpenVisit> = {};
  // a zone forgotten (deleted, or no longer the owner's) drops its open visit from the state; its record stays open
  for (const [id, visit] of Object.entries(state.open)) if (crossing.state.zones[id]?.inside) open[id] = visit;
  const records: VisitRecord[] = [];
  for (const zoneId of crossing.exited) {
    const visit = state.open[String(zoneId)];
    if (visit) records.push(closeVisit(zoneId, visit, message, time));
    delete open[String(zoneId)];
  }
  for (const zoneId of crossing.entered) {
    const mileage = numericParameter(message, MILEAGE_PARAMETER);
    const visit: OpenVisit = {
      startDate: new Date(time).toISOString(),
      latitude: message.latitude,
      longitude: message.longitude,
      ...(mileage === undefined ? {} : { mileage }),
      path: 0,
      atLatitude: message.latitude,
      atLongitude: message.longitude,
    };
    open[String(zoneId)] = visit;
    records.push({ zoneId, startDate: visit.startDate, entry: { latitude: visit.latitude, longitude: visit.longitude } });
  }
  return { state: { zones: crossing.state.zones, open }, records };
}

/** Adds to each open visit's path the segment to the position being stored with the state. */
export function advanceOpenVisits(state: VisitsState, position: VisitPoint): VisitsState {
  const open: Record<string, OpenVisit> = {};
  for (const [id, visit] of Object.entries(state.open)) {
    const step = haversineMeters(visit.atLatitude, visit.atLongitude, position.latitude, position.longitude);
    open[id] = { ...visit, path: round(visit.path + step, 1), atLatitude: position.latitude, atLongitude: position.longitude };
  }
  return { zones: state.zones, open };
}

export const hasVisits = (state: VisitsState): boolean => Object.keys(state.zones).length > 0 || Object.keys(state.open).length > 0;
