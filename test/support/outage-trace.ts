import type { TerminalMessageInput } from '../../shared/schemas/terminal-message';
import { connectionLost, DEPOT, diceFor, REPLAY_RULE_IDS, RESTORED_WITHIN_MS, TRACE_START, type ExpectedAlert, type Trace } from './trace-generator';

/**
 * A trace in which the telematics feed stops for 10 minutes, for the whole fleet or for some of its vehicles
 * (one client's), with the connection-loss alerts it must raise, known by construction:
 * - every vehicle reports every 30 s;
 * - from minute 12 to minute 22 nothing arrives from the interrupted vehicles. Most report again when the feed
 *   is back and owe nothing; the first `lostForGood` of them never report again (real losses during the
 *   outage), and owe one loss each, timed at their last message + the limit;
 * - `ordinary` vehicles (the last ones of the fleet) fall silent on their own for 8 minutes from
 *   `ordinaryFrom`, and owe a loss at once and a restoration when they report again;
 * - from minute 35 the vehicles stop one by one, 40 s apart, each owing its loss: a fleet that winds down
 *   is no outage.
 */
export const OUTAGE_LIMIT_MINUTES = 5;
const LIMIT_MS = OUTAGE_LIMIT_MINUTES * 60_000;
const MINUTE = 60_000;
const REPORT_EVERY_MS = 30_000;
export const OUTAGE_FROM = TRACE_START + 12 * MINUTE;
export const OUTAGE_TO = OUTAGE_FROM + 10 * MINUTE;
const ORDINARY_SILENCE_MS = 8 * MINUTE;
const WIND_DOWN_FROM = TRACE_START + 35 * MINUTE;
const WIND_DOWN_STEP_MS = 40_000;

export interface OutageTraceOptions {
  seed: number;
  vehicles: number;
  /** The first this many vehicles lose their feed. */
  interrupted: number;
  /** Of those, the first this many never report again. */
  lostForGood: number;
  /** The last this many vehicles fall silent on their own, from `ordinaryFrom` (epoch ms). */
  ordinary: number;
  ordinaryFrom: number;
}

export interface OutageTrace extends Trace {
  /** Vehicles whose feed stops, and those of them that never report again. */
  interrupted: number[];
  lostForGood: number[];
  ordinary: number[];
}

const FIRST_VEHICLE_ID = 1_001;

export function generateOutageTrace(options: OutageTraceOptions): OutageTrace {
  const ids = Array.from({ length: options.vehicles }, (_, index) => FIRST_VEHICLE_ID + index);
  const interrupted = ids.slice(0, options.interrupted);
  const lostForGood = interrupted.slice(0, options.lostForGood);
  const ordinary = ids.slice(ids.length - options.ordinary);
  const expected: ExpectedAlert[] = [];
  const vehicles = ids.map((vehicleId, index) => {
    const dice = diceFor(options.seed, vehicleId);
    const end = lostForGood.includes(vehicleId) ? OUTAGE_FROM : WIND_DOWN_FROM + index * WIND_DOWN_STEP_MS;
    const silent = (time: number) =>
      (interrupted.includes(vehicleId) && time >= OUTAGE_FROM && time < OUTAGE_TO) ||
      (ordinary.includes(vehicleId) && time >= options.ordinaryFrom && time < options.ordinaryFrom + ORDINARY_SILENCE_MS);
    const times: number[] = [];
    for (let time = TRACE_START + dice.int(0, REPORT_EVERY_MS - 1); time < end; time += REPORT_EVERY_MS) if (!silent(time)) times.push(time);
    if (ordinary.includes(vehicleId)) {
      const before = times.filter((time) => time < options.ordinaryFrom).at(-1)!;
      const after = times.find((time) => time >= options.ordinaryFrom)!;
      expected.push(connectionLost(vehicleId, before, LIMIT_MS), {
        rule: 'connectionLoss',
        ruleId: REPLAY_RULE_IDS.connectionLoss,
        vehicleId,
        kind: 'connectionRestored',
        from: after,
        to: after + RESTORED_WITHIN_MS,
      });
    }
    expected.push(connectionLost(vehicleId, times.at(-1)!, LIMIT_MS));
    const messages = times.map((time): TerminalMessageInput => ({
      vehicleId,
      deviceTime: new Date(time).toISOString(),
      latitude: DEPOT.latitude + index * 0.001,
      longitude: DEPOT.longitude + 0.05,
      speed: 50,
      course: 90,
      satellites: 12,
      parameters: { ignition: '1' },
    }));
    return { vehicleId, messages };
  });
  const end = Math.max(...vehicles.map((vehicle) => Date.parse(vehicle.messages.at(-1)!.deviceTime)));
  return {
    options: { seed: options.seed, vehicles: options.vehicles, messagesPerVehicle: 0, firstVehicleId: FIRST_VEHICLE_ID },
    vehicles,
    expected,
    end,
    planted: { interrupted: interrupted.length, lostForGood: lostForGood.length, ordinary: ordinary.length },
    interrupted,
    lostForGood,
    ordinary,
  };
}
