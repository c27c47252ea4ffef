import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../shared/aws/clients';
import { haversineMeters } from '../../shared/geo/measure';
import type { TerminalMessageInput } from '../../shared/schemas/terminal-message';

/**
 * A small demo fleet driving deterministic loops around a depot. Each vehicle's state is a pure function
 * of the seconds elapsed since the simulation started, so a trace can be replayed or fast-forwarded with
 * an injected clock, and the same second always yields the same message.
 */

export interface Point {
  latitude: number;
  longitude: number;
}

/** A stretch of the driving cycle: speed changes linearly from `fromKmh` to `toKmh` over `seconds`. */
export interface SpeedPhase {
  seconds: number;
  fromKmh: number;
  toKmh: number;
  /** Engine running; defaults to true. A stop with the ignition on is idling. */
  ignition?: boolean;
  /** Further terminal parameters reported during the phase, such as an alarm's I/O element. */
  parameters?: Record<string, number>;
}

export interface SimulatedVehicle {
  vehicleId: number;
  name: string;
  /** Closed loop of waypoints, driven over and over. */
  route: Point[];
  /** Repeating speed profile. */
  cycle: SpeedPhase[];
  /** Seconds into the cycle at which the simulation starts. */
  cycleOffset: number;
  /** Metres along the route at which the vehicle starts (default: its first waypoint). */
  startMetres?: number;
  /** Odometer at the start, km. */
  odometerKm: number;
}

/** The simulated depot, in Baku's Binagadi industrial area. */
export const DEPOT: Point = { latitude: 40.466, longitude: 49.828 };

/** Rectangle of the depot yard, metres east/north of DEPOT. */
export const DEPOT_YARD = { west: -200, east: 200, south: -150, north: 150 } as const;

const METRES_PER_DEGREE = 111_320;

/** A point `east` and `north` metres away from the depot. */
export function offset(east: number, north: number, origin: Point = DEPOT): Point {
  return {
    latitude: round(origin.latitude + north / METRES_PER_DEGREE, 6),
    longitude: round(origin.longitude + east / (METRES_PER_DEGREE * Math.cos((origin.latitude * Math.PI) / 180)), 6),
  };
}

/** The depot yard as a closed GeoJSON ring ([longitude, latitude] positions). */
export function depotYardRing(): Array<[number, number]> {
  const { west, east, south, north } = DEPOT_YARD;
  const corners = [offset(west, south), offset(east, south), offset(east, north), offset(west, north), offset(west, south)];
  return corners.map((corner) => [corner.longitude, corner.latitude]);
}

/** Above 90 km/h for about 20 s of every 40 s cycle, the first time a few seconds after the start. */
const SPEEDER_CYCLE: SpeedPhase[] = [
  { seconds: 4, fromKmh: 72, toKmh: 104 },
  { seconds: 18, fromKmh: 104, toKmh: 109 },
  { seconds: 4, fromKmh: 109, toKmh: 74 },
  { seconds: 14, fromKmh: 74, toKmh: 66 },
];

/** Parked with the engine off for a minute and a half, then towed about 120 m with the ignition still off. */
const TOW: SpeedPhase[] = [
  { seconds: 90, fromKmh: 0, toKmh: 0, ignition: false },
  { seconds: 5, fromKmh: 0, toKmh: 12, ignition: false },
  { seconds: 30, fromKmh: 12, toKmh: 12, ignition: false },
  { seconds: 5, fromKmh: 12, toKmh: 0, ignition: false },
];

/** Drives out of the depot and round the block, never above 80 km/h. */
const COURIER_CYCLE: SpeedPhase[] = [
  { seconds: 15, fromKmh: 0, toKmh: 55 },
  { seconds: 120, fromKmh: 55, toKmh: 68 },
  { seconds: 60, fromKmh: 68, toKmh: 48 },
  { seconds: 120, fromKmh: 48, toKmh: 62 },
  { seconds: 10, fromKmh: 62, toKmh: 0 },
  { seconds: 30, fromKmh: 0, toKmh: 0, ignition: false },
];

/** Teltonika's harsh driving element (io253 Green Driving Type) and its value for harsh braking. */
const HARSH_BRAKING = { io253: 2 };

/** Short hops between customers, each ended by a harsh braking, then a long stop with the engine running. */
const VAN_CYCLE: SpeedPhase[] = [
  { seconds: 10, fromKmh: 0, toKmh: 45 },
  { seconds: 100, fromKmh: 45, toKmh: 50 },
  { seconds: 7, fromKmh: 50, toKmh: 30 },
  { seconds: 3, fromKmh: 30, toKmh: 0, parameters: HARSH_BRAKING },
  { seconds: 240, fromKmh: 0, toKmh: 0, ignition: true },
  ...TOW,
];

function loop(points: Array<[number, number]>, origin: Point = DEPOT): Point[] {
  return points.map(([east, north]) => offset(east, north, origin));
}

/**
 * The demo fleet. The first vehicle speeds, the second leaves and re-enters the depot yard, the third brakes
 * harshly and idles, then parks and is towed; the first and the second never rest long, the third rests at every
 * stop. Any further vehicles drive the ring road at ordinary speeds, without a stop.
 */
export function demoFleet(count = 3): SimulatedVehicle[] {
  const special: SimulatedVehicle[] = [
    {
      vehicleId: 1001,
      name: 'Truck 1001 (MAN TGX)',
      route: loop([
        [600, 400],
        [2600, 400],
        [2600, 1600],
        [600, 1600],
      ]),
      cycle: SPEEDER_CYCLE,
      cycleOffset: 36,
      odometerKm: 182_340,
    },
    {
      vehicleId: 1002,
      name: 'Truck 1002 (Volvo FH)',
      route: loop([
        [0, 0],
        [0, -600],
        [1500, -600],
        [1500, 900],
        [0, 900],
      ]),
      cycle: COURIER_CYCLE,
      cycleOffset: 0,
      odometerKm: 96_120,
    },
    {
      vehicleId: 1003,
      name: 'Van 1003 (Ford Transit)',
      route: loop([
        [-700, -300],
        [-1900, -300],
        [-1900, -1400],
        [-700, -1400],
      ]),
      cycle: VAN_CYCLE,
      cycleOffset: 0,
      odometerKm: 41_877,
    },
  ];
  const fleet = special.slice(0, Math.max(0, count));
  for (let index = special.length; index < count; index++) {
    const cruise = 50 + (index % 5) * 5;
    fleet.push({
      vehicleId: 1001 + index,
      name: `Truck ${1001 + index}`,
      route: loop([
        [600, -400],
        [3200, -400],
        [3200, -2200],
        [600, -2200],
      ]),
      cycle: [
        { seconds: 90, fromKmh: cruise - 8, toKmh: cruise + 8 },
        { seconds: 90, fromKmh: cruise + 8, toKmh: cruise - 8 },
      ],
      cycleOffset: (index * 37) % 180,
      startMetres: index * 650,
      odometerKm: 10_000 * index,
    });
  }
  return fleet;
}

interface Motion {
  kmh: number;
  metres: number;
  ignition: boolean;
  parameters?: Record<string, number>;
}

function cycleLength(cycle: readonly SpeedPhase[]): { seconds: number; metres: number } {
  let seconds = 0;
  let metres = 0;
  for (const phase of cycle) {
    seconds += phase.seconds;
    metres += phaseMetres(phase, phase.seconds);
  }
  return { seconds, metres };
}

/** Distance covered `tau` seconds into a phase whose speed changes linearly. */
function phaseMetres(phase: SpeedPhase, tau: number): number {
  const from = phase.fromKmh / 3.6;
  const to = phase.toKmh / 3.6;
  return from * tau + ((to - from) * tau * tau) / (2 * phase.seconds);
}

/** Speed, ignition and distance from the cycle's origin, `since` seconds after that origin. */
function cycleMotion(cycle: readonly SpeedPhase[], since: number): Motion {
  const total = cycleLength(cycle);
  const cycles = Math.floor(since / total.seconds);
  let within = since - cycles * total.seconds;
  let metres = cycles * total.metres;
  for (const phase of cycle) {
    if (within < phase.seconds) {
      const kmh = phase.fromKmh + ((phase.toKmh - phase.fromKmh) * within) / phase.seconds;
      return { kmh, metres: metres + phaseMetres(phase, within), ignition: phase.ignition ?? true, parameters: phase.parameters };
    }
    metres += phaseMetres(phase, phase.seconds);
    within -= phase.seconds;
  }
  throw new Error('a speed cycle needs at least one phase of positive length');
}

/** Speed, ignition and distance driven `seconds` after the start; every vehicle starts at its first waypoint. */
export function motionAt(vehicle: SimulatedVehicle, seconds: number): Motion {
  const motion = cycleMotion(vehicle.cycle, seconds + vehicle.cycleOffset);
  return { ...motion, metres: motion.metres - cycleMotion(vehicle.cycle, vehicle.cycleOffset).metres };
}

function bearingDegrees(a: Point, b: Point): number {
  const toRadians = Math.PI / 180;
  const y = Math.sin((b.longitude - a.longitude) * toRadians) * Math.cos(b.latitude * toRadians);
  const x =
    Math.cos(a.latitude * toRadians) * Math.sin(b.latitude * toRadians) -
    Math.sin(a.latitude * toRadians) * Math.cos(b.latitude * toRadians) * Math.cos((b.longitude - a.longitude) * toRadians);
  return ((Math.atan2(y, x) * 180) / Math.PI + 360) % 360;
}

/** Position and heading after driving `metres` along the closed route. */
export function positionAlong(route: readonly Point[], metres: number): Point & { course: number } {
  const legs = route.map((from, index) => {
    const to = route[(index + 1) % route.length]!;
    return { from, to, length: haversineMeters(from.latitude, from.longitude, to.latitude, to.longitude) };
  });
  const perimeter = legs.reduce((sum, leg) => sum + leg.length, 0);
  let along = ((metres % perimeter) + perimeter) % perimeter;
  for (const leg of legs) {
    if (along <= leg.length) {
      const share = leg.length === 0 ? 0 : along / leg.length;
      return {
        latitude: leg.from.latitude + (leg.to.latitude - leg.from.latitude) * share,
        longitude: leg.from.longitude + (leg.to.longitude - leg.from.longitude) * share,
        course: bearingDegrees(leg.from, leg.to),
      };
    }
    along -= leg.length;
  }
  const last = legs.at(-1)!;
  return { ...last.to, course: bearingDegrees(last.from, last.to) };
}

/** Small deterministic wobble in [-1, 1], so values look measured without any randomness. */
function wobble(vehicleId: number, seconds: number, period: number): number {
  return Math.sin((seconds + vehicleId * 13) * ((2 * Math.PI) / period));
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

const TANK_LITRES = 400;
const LITRES_PER_KM = 0.32;

/** The message the vehicle's terminal sends `seconds` after `startTime` (epoch ms). */
export function simulatedMessage(vehicle: SimulatedVehicle, startTime: number, seconds: number): TerminalMessageInput {
  const motion = motionAt(vehicle, seconds);
  const position = positionAlong(vehicle.route, motion.metres + (vehicle.startMetres ?? 0));
  const km = motion.metres / 1000;
  const moving = motion.kmh > 0.5;
  const speed = moving ? round(Math.max(0, motion.kmh + 1.2 * wobble(vehicle.vehicleId, seconds, 7)), 1) : 0;
  const deviceTime = startTime + seconds * 1000;
  // refuelled to a full tank whenever it has burnt 300 litres
  const fuel = TANK_LITRES - ((km * LITRES_PER_KM) % 300) + 0.6 * wobble(vehicle.vehicleId, seconds, 11);
  return {
    vehicleId: vehicle.vehicleId,
    deviceTime: new Date(deviceTime).toISOString(),
    serverTime: new Date(deviceTime + 400).toISOString(),
    latitude: round(position.latitude, 6),
    longitude: round(position.longitude, 6),
    speed,
    course: round(position.course, 1),
    altitude: round(12 + 3 * wobble(vehicle.vehicleId, seconds, 97), 1),
    satellites: 10 + Math.round(2 * wobble(vehicle.vehicleId, seconds, 23)),
    voltage: round(motion.ignition ? 27.9 + 0.2 * wobble(vehicle.vehicleId, seconds, 5) : 25.2, 2),
    // parameter names are the rule evaluators' defaults, so rules created with default settings apply
    parameters: {
      ignition: motion.ignition ? 1 : 0,
      fuel: round(fuel, 1),
      mileage: round(vehicle.odometerKm + km, 3),
      engineHours: round(vehicle.odometerKm / 45 + seconds / 3600, 2),
      rpm: motion.ignition ? Math.round(moving ? 900 + motion.kmh * 12 : 650) : 0,
      panic: 0,
      ...motion.parameters,
    },
    protocolType: 'simulator',
  };
}

/** One message per vehicle for each whole second in [fromSecond, toSecond). */
export function simulatedSpan(fleet: readonly SimulatedVehicle[], startTime: number, fromSecond: number, toSecond: number): TerminalMessageInput[] {
  const messages: TerminalMessageInput[] = [];
  for (let second = fromSecond; second < toSecond; second++) {
    for (const vehicle of fleet) messages.push(simulatedMessage(vehicle, startTime, second));
  }
  return messages;
}

/** Sends messages to the FIFO input queue in batches of ten, grouped by vehicle as the platform does. */
export async function sendTerminalMessages(queueUrl: string, messages: readonly TerminalMessageInput[]): Promise<void> {
  for (let start = 0; start < messages.length; start += 10) {
    const batch = messages.slice(start, start + 10);
    const { Failed = [] } = await sqsClient().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((message, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify(message),
          MessageGroupId: String(message.vehicleId),
        })),
      }),
    );
    if (Failed.length > 0) {
      throw new Error(`the input queue refused ${Failed.length} message(s): ${Failed.map((failure) => failure.Message).join('; ')}`);
    }
  }
}

export interface SimulatorOptions {
  queueUrl: string;
  fleet: SimulatedVehicle[];
  /** Epoch ms; the simulation's clock. */
  now?: () => number;
  /** How often the simulator wakes up to send what is due. */
  tickMs?: number;
  /** Most seconds sent in one wake-up after a stall, so that a paused process does not flood the queue. */
  maxCatchUpSeconds?: number;
  onError?: (error: unknown) => void;
}

export interface RunningSimulator {
  /** Seconds of simulated driving sent so far. */
  readonly secondsSent: number;
  stop(): Promise<void>;
}

/** Sends each vehicle's message every simulated second until stopped. */
export function startSimulator(options: SimulatorOptions): RunningSimulator {
  const now = options.now ?? Date.now;
  const tickMs = options.tickMs ?? 1000;
  const maxCatchUp = options.maxCatchUpSeconds ?? 10;
  const startTime = Math.floor(now() / 1000) * 1000;
  let next = 0;
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  const step = async () => {
    const due = Math.floor((now() - startTime) / 1000) + 1;
    if (due - next > maxCatchUp) next = due - maxCatchUp;
    if (due <= next) return;
    await sendTerminalMessages(options.queueUrl, simulatedSpan(options.fleet, startTime, next, due));
    next = due;
  };

  const loop = (async () => {
    while (running) {
      try {
        await step();
      } catch (error) {
        options.onError?.(error);
      }
      if (!running) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, tickMs);
      });
    }
  })();

  return {
    get secondsSent() {
      return next;
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      wake?.();
      await loop;
    },
  };
}
