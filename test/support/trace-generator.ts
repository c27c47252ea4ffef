import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import type { TerminalMessageInput } from '../../shared/schemas/terminal-message';

/**
 * A seeded, deterministic terminal-message trace for a fleet, with planted episodes and the alerts they must
 * raise. The expected alerts are known by construction, from what was planted: they are never computed by
 * running fleetwatch's evaluators.
 *
 * Every vehicle reports every ~10 s. Its day is a sequence of segments separated by ordinary driving:
 * speeding episodes, trips out of and back into a depot geozone, idling with the ignition on, panic presses,
 * fuel drained or filled while parked, silences (the terminal stops reporting for a while; every vehicle also
 * falls silent at the end of the trace), long parking with the ignition off, tows (parked, then moved away with
 * the ignition still off and no speed reported), and look-alikes that must raise nothing (a single message above the
 * limit, driving just under it, short stops, parking with the ignition off, hovering at the depot border, a
 * single fuel reading far off while parked).
 *
 * Settings (REPLAY_SETTINGS) and planted magnitudes are chosen so that each episode is unambiguous even when
 * messages arrive up to 30 s late and are then ignored for state (a message older than one already processed
 * is stale): an episode outlasts its minimum duration by more than twice that delay plus a batch.
 */

/** 2026-03-02T06:00:00Z: device time of the first message of the trace (vehicles start within 10 s). */
export const TRACE_START = Date.parse('2026-03-02T06:00:00.000Z');
/** Average interval between two messages of one vehicle, and how far one may stray from it. */
export const MESSAGE_INTERVAL_MS = 10_000;
const INTERVAL_JITTER_MS = 1_000;
/** Longest device-time reordering a replay scenario applies; the planted durations allow for it. */
export const MAX_REORDER_MS = 30_000;

/** The depot geozone: a square of 3 km side, in a flat local frame in metres (x east, y north of its centre). */
export const DEPOT = {
  id: 1,
  name: 'Depot',
  latitude: 55.75,
  longitude: 37.62,
  halfSideMeters: 1_500,
} as const;

/** Rule settings of the replay, as the platform's string map. Each rule watches every vehicle of the trace. */
export const REPLAY_SETTINGS = {
  /** Limit 90 km/h, alert after 20 s above it; the episode ends after 30 s at or below 85 km/h. */
  speeding: { limit: '90', minDuration: '20', endMargin: '5', endDuration: '30' },
  /** Entry and exit of the depot; 50 m hysteresis either side of the border; reported at once. */
  geozone: { mode: 'both', margin: '50', minDwell: '0' },
  /** Ignition on and below 5 km/h for 3 minutes. */
  idle: { ignition: 'ignition', maxSpeed: '5', minutes: '3' },
  /** Panic button on digital parameter `panic`. */
  panic: { parameter: 'panic' },
  /** Fuel level in litres on parameter `fuel`: a fall of 15 L while parked, median of 5 readings, settled for 2 min. */
  drain: { parameter: 'fuel', threshold: '15', window: '5', parkedSpeed: '5', settle: '120' },
  /** The same for a rise of 15 L. */
  fuelling: { parameter: 'fuel', threshold: '15', window: '5', parkedSpeed: '5', settle: '120' },
  /** No message for 10 minutes; the first message after such a silence is reported too. */
  connectionLoss: { minutes: '10', notifyRestored: 'true' },
  /** Parked with the ignition off for 7 minutes within 50 m; the end of such a stop is reported too. */
  parking: { minutes: '7', ignition: 'off', radius: '50', notifyEnd: 'true' },
  /** Moved over 300 m, two fixes in a row, with the ignition off, after standing with it off for 3 minutes. */
  movement: { distance: '300', minStop: '3', ignitionOff: 'true', confirmFixes: '2' },
  /**
   * Continuous driving cut to the trace's length: 36 s of driving (a warning 15 s before), above 3 km/h; only a
   * rest of 20 minutes in one piece, which only a planted silence is, starts afresh; 20 s of driving end a rest.
   */
  continuousDriving: { maxSpeed: '3', hours: '0.01', warnBefore: '0.25', restMinutes: '20', minDriving: '20', maxGap: '120' },
  /** Every alarm, on Teltonika FMB elements (the defaults); readings within a minute are one event. */
  deviceAlarm: { repeatWindow: '60' },
} as const;

export const REPLAY_RULE_IDS = {
  speeding: 1,
  geozone: 2,
  idle: 3,
  panic: 4,
  drain: 5,
  fuelling: 6,
  connectionLoss: 7,
  parking: 8,
  movement: 9,
  continuousDriving: 10,
  deviceAlarm: 11,
} as const;
export type ReplayRuleName = keyof typeof REPLAY_RULE_IDS;

/** Values the planted episodes use, derived from REPLAY_SETTINGS with a wide berth around every threshold. */
const SPEED_LIMIT = Number(REPLAY_SETTINGS.speeding.limit);
const SPEEDING_MIN_MS = Number(REPLAY_SETTINGS.speeding.minDuration) * 1000;
const ZONE_MARGIN_M = Number(REPLAY_SETTINGS.geozone.margin);
const IDLE_MIN_MS = Number(REPLAY_SETTINGS.idle.minutes) * 60_000;
const FUEL_THRESHOLD_L = Number(REPLAY_SETTINGS.drain.threshold);
/** Litres burnt per message while moving: far too little to add up to the threshold within a reference window. */
const CONSUMPTION_PER_MESSAGE_L = 0.03;
const SILENCE_LIMIT_MS = Number(REPLAY_SETTINGS.connectionLoss.minutes) * 60_000;
/**
 * The loss is timed at the last time the vehicle was seen (the arrival of its last message, as stored, which
 * may trail it by one heartbeat interval of 60 s) plus the limit. Around the last message's device time that
 * is from 100 s before (heartbeat, and a last message reordered behind earlier ones) to 32 s after (the
 * longest arrival delay of any scenario).
 */
const LAST_SEEN_BEFORE_MS = 100_000;
const LAST_SEEN_AFTER_MS = MAX_REORDER_MS + 2_000;
/** The first message after a silence is reported when it is processed: within a minute of its device time. */
export const RESTORED_WITHIN_MS = 60_000;
const PARKING_MIN_MS = Number(REPLAY_SETTINGS.parking.minutes) * 60_000;
const MOVEMENT_DISTANCE_M = Number(REPLAY_SETTINGS.movement.distance);
/** How far a tow takes the vehicle between two messages: its second and third fixes lie beyond `distance` (1.14 and 1.71 ×). */
const TOW_STEP_M = MOVEMENT_DISTANCE_M * 0.57;
const DRIVING_MAX_SPEED = Number(REPLAY_SETTINGS.continuousDriving.maxSpeed);
const DRIVING_LIMIT_MS = Number(REPLAY_SETTINGS.continuousDriving.hours) * 3_600_000;
const DRIVING_WARNING_MS = DRIVING_LIMIT_MS - Number(REPLAY_SETTINGS.continuousDriving.warnBefore) * 60_000;
const FULL_REST_MS = Number(REPLAY_SETTINGS.continuousDriving.restMinutes) * 60_000;
const REST_END_MS = Number(REPLAY_SETTINGS.continuousDriving.minDriving) * 1000;
/** Longest interval between two messages that is not a planted silence. */
const LONGEST_INTERVAL_MS = MESSAGE_INTERVAL_MS + INTERVAL_JITTER_MS;
/** Readings of a terminal in good health: external voltage and backup battery (mV), no jamming. */
const HEALTHY_TERMINAL = { io66: '12600', io67: '4100', io249: '0' } as const;

/** Base positions: deep inside the depot and far outside it (1,200 m from its east border either way). */
const X_INSIDE = 300;
const X_OUTSIDE = 2_700;
const BORDER_X = DEPOT.halfSideMeters;
/** Planted positions keep at least this far from either hysteresis threshold (border ± margin). */
const THRESHOLD_BERTH_M = 25;

export type ExpectedKind =
  | 'speeding'
  | 'zoneExit'
  | 'zoneEntry'
  | 'idle'
  | 'panic'
  | 'drain'
  | 'fuelling'
  | 'connectionLost'
  | 'connectionRestored'
  | 'parking'
  | 'parkingEnded'
  | 'movement'
  | 'drivingLimitNear'
  | 'drivingLimit'
  | 'deviceAlarm';

/** One alert the trace must raise: its rule, vehicle, kind, and the device-time window its event must fall in. */
export interface ExpectedAlert {
  rule: ReplayRuleName;
  ruleId: number;
  vehicleId: number;
  kind: ExpectedKind;
  /** Epoch ms, inclusive. */
  from: number;
  to: number;
}

export interface TraceOptions {
  seed: number;
  vehicles: number;
  messagesPerVehicle: number;
  /** Id of the first vehicle; the others follow. */
  firstVehicleId?: number;
}

export const SMALL_TRACE: TraceOptions = { seed: 20_260_302, vehicles: 40, messagesPerVehicle: 100 };
export const FULL_TRACE: TraceOptions = { seed: 20_260_303, vehicles: 500, messagesPerVehicle: 200 };
/** Small chaos scenarios: a few vehicles, long enough for every fault window. */
export const SMALL_CHAOS_TRACE: TraceOptions = { seed: 20_260_304, vehicles: 12, messagesPerVehicle: 100 };
/** Small durable-delivery scenarios: what matters is each held target through hours of outage, not the fleet's size. */
export const SMALL_DURABLE_TRACE: TraceOptions = { seed: 20_260_306, vehicles: 8, messagesPerVehicle: 100 };
/** Small killed scenario: a fleet large enough that a minute's batch commits in more than one transaction. */
export const SMALL_KILLED_TRACE: TraceOptions = { seed: 20_260_305, vehicles: 120, messagesPerVehicle: 60 };

export interface VehicleTrace {
  vehicleId: number;
  /** In device-time order. */
  messages: TerminalMessageInput[];
}

export interface Trace {
  options: TraceOptions;
  vehicles: VehicleTrace[];
  expected: ExpectedAlert[];
  /** Device time of the last message of the trace, epoch ms. */
  end: number;
  /** Planted segments by name, for the summary (negative ones included). */
  planted: Record<string, number>;
}

/** A point of a vehicle's day before it gets a time: where it is, how fast, ignition and panic button. */
interface Sample {
  x: number;
  y: number;
  speed: number;
  ignition: boolean;
  panic: boolean;
  /** Fuel level reading, litres. */
  fuel: number;
  /** Terminal I/O elements reporting an alarm, over the healthy readings. */
  alarm?: Record<string, string>;
}

/** What a segment plants, by sample index within the segment. */
interface Segment {
  name: string;
  samples: Sample[];
  /** A silence: no samples, this much device time passes before the next segment. */
  silenceMs?: number;
  /**
   * Expected alerts of this segment: the window runs from `firstSample`'s time plus `minDurationMs` to
   * `lastSample`'s time plus `lateMs`. `lastSample` may be the segment's length, i.e. the first message after it.
   */
  episodes: { rule: ReplayRuleName; kind: ExpectedKind; firstSample: number; lastSample: number; minDurationMs: number; lateMs?: number }[];
}

class Dice {
  constructor(private readonly rng: RandomGenerator) {}
  int(from: number, to: number): number {
    return uniformInt(this.rng, from, to);
  }
  real(from: number, to: number): number {
    return from + (to - from) * uniformFloat64(this.rng);
  }
  pick<T>(weighted: readonly (readonly [T, number])[]): T {
    const total = weighted.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.real(0, total);
    for (const [value, weight] of weighted) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return weighted.at(-1)![0];
  }
}

/** One random stream per (seed, vehicle), so a vehicle's day does not depend on the fleet size. */
export function diceFor(seed: number, stream: number): Dice {
  return new Dice(xoroshiro128plus((seed ^ Math.imul(stream, 0x9e3779b1)) | 0));
}

export type { Dice };

const METERS_PER_DEGREE = 111_195;

function toLatLon(x: number, y: number): { latitude: number; longitude: number } {
  const latitude = DEPOT.latitude + y / METERS_PER_DEGREE;
  const longitude = DEPOT.longitude + x / (METERS_PER_DEGREE * Math.cos((DEPOT.latitude * Math.PI) / 180));
  return { latitude: Number(latitude.toFixed(7)), longitude: Number(longitude.toFixed(7)) };
}

/** The depot polygon in GeoJSON order ([lon, lat]), closed. */
export function depotRing(): [number, number][] {
  const h = DEPOT.halfSideMeters;
  const corners: [number, number][] = [
    [-h, -h],
    [h, -h],
    [h, h],
    [-h, h],
    [-h, -h],
  ];
  return corners.map(([x, y]) => {
    const { latitude, longitude } = toLatLon(x, y);
    return [longitude, latitude];
  });
}

/** Which side of the depot border a position is on, clear of the hysteresis band; 'border' within it. */
function sideOf(x: number): 'inside' | 'outside' | 'border' {
  if (x < BORDER_X - ZONE_MARGIN_M) return 'inside';
  if (x > BORDER_X + ZONE_MARGIN_M) return 'outside';
  return 'border';
}

/** Moves a planted x away from the two hysteresis thresholds, so rounding can never decide a crossing. */
function clearOfThresholds(x: number): number {
  for (const threshold of [BORDER_X - ZONE_MARGIN_M, BORDER_X + ZONE_MARGIN_M]) {
    if (Math.abs(x - threshold) < THRESHOLD_BERTH_M) return x < threshold ? threshold - THRESHOLD_BERTH_M : threshold + THRESHOLD_BERTH_M;
  }
  return x;
}

class DayPlanner {
  private base: number;
  private fuel: number;
  readonly segments: Segment[] = [];
  private used = 0;

  constructor(
    private readonly dice: Dice,
    private readonly y: number,
    startsInside: boolean,
  ) {
    this.base = startsInside ? X_INSIDE : X_OUTSIDE;
    this.fuel = dice.real(250, 400);
  }

  get count(): number {
    return this.used;
  }

  /** Where the vehicle is and what is in its tank: taken before trying a segment that may not fit. */
  snapshot(): { base: number; fuel: number } {
    return { base: this.base, fuel: this.fuel };
  }

  restore(snapshot: { base: number; fuel: number }): void {
    this.base = snapshot.base;
    this.fuel = snapshot.fuel;
  }

  add(segment: Segment): void {
    this.segments.push(segment);
    this.used += segment.samples.length;
  }

  private at(x: number, speed: number, ignition = true, panic = false, fuelOffset = 0): Sample {
    if (speed >= 5) this.fuel -= CONSUMPTION_PER_MESSAGE_L;
    // sensor noise of ±0.2 L, in the 0.1 L steps terminals report
    const fuel = Math.round((this.fuel + fuelOffset + this.dice.real(-0.2, 0.2)) * 10) / 10;
    return { x: clearOfThresholds(x), y: this.y + this.dice.real(-15, 15), speed: Math.round(speed * 10) / 10, ignition, panic, fuel };
  }

  /** Ordinary driving around the current base, well under the limit (≤ 70 km/h, limit − endMargin is 85). */
  cruise(length: number): Segment {
    const samples = Array.from({ length }, () => this.at(this.base + this.dice.real(-40, 40), this.dice.real(35, 70)));
    return { name: 'cruise', samples, episodes: [] };
  }

  /** 14–18 messages at 110–130 km/h: at least 117 s above the limit of 90 km/h (20 s needed). */
  speeding(): Segment {
    const length = this.dice.int(14, 18);
    const samples = Array.from({ length }, () => this.at(this.base + this.dice.real(-40, 40), this.dice.real(SPEED_LIMIT + 20, SPEED_LIMIT + 40)));
    return {
      name: 'speeding',
      samples,
      episodes: [{ rule: 'speeding', kind: 'speeding', firstSample: 0, lastSample: length - 1, minDurationMs: SPEEDING_MIN_MS }],
    };
  }

  /** One message at 95–105 km/h between ordinary ones: above the limit for 0 s, never an alert. */
  speedBlip(): Segment {
    return { name: 'speedBlip (no alert)', samples: [this.at(this.base, this.dice.real(SPEED_LIMIT + 5, SPEED_LIMIT + 15))], episodes: [] };
  }

  /** 4–8 messages at 80–88 km/h: close to the limit, never above it. */
  nearLimit(): Segment {
    const samples = Array.from({ length: this.dice.int(4, 8) }, () => this.at(this.base, this.dice.real(SPEED_LIMIT - 10, SPEED_LIMIT - 2)));
    return { name: 'nearLimit (no alert)', samples, episodes: [] };
  }

  /** 32–40 messages standing with the ignition on: at least 279 s (3 minutes needed). */
  idle(): Segment {
    const length = this.dice.int(32, 40);
    const x = this.base + this.dice.real(-40, 40);
    const samples = Array.from({ length }, () => this.at(x + this.dice.real(-3, 3), this.dice.real(0, 2)));
    return { name: 'idle', samples, episodes: [{ rule: 'idle', kind: 'idle', firstSample: 0, lastSample: length - 1, minDurationMs: IDLE_MIN_MS }] };
  }

  /** 6–10 messages standing with the ignition on: at most 110 s, short of the 3 minutes. */
  shortStop(): Segment {
    const x = this.base;
    const samples = Array.from({ length: this.dice.int(6, 10) }, () => this.at(x, 0));
    return { name: 'shortStop (no alert)', samples, episodes: [] };
  }

  /**
   * 56–60 messages standing with the ignition off, drifting up to 40 m: at least 495 s (7 minutes needed). Every
   * other stand with the ignition off is at most 38 messages (407 s). The stop ends with the first message of
   * the drive after it, whose ignition is on; when that message arrives late, with the next one, at most 30 s later.
   */
  longPark(): Segment {
    const length = this.dice.int(56, 60);
    const x = this.base + this.dice.real(-40, 40);
    const samples = Array.from({ length }, () => this.at(x + this.dice.real(-10, 10), this.dice.real(0, 3), false));
    return {
      name: 'longPark',
      samples,
      episodes: [
        { rule: 'parking', kind: 'parking', firstSample: 0, lastSample: length - 1, minDurationMs: PARKING_MIN_MS },
        { rule: 'parking', kind: 'parkingEnded', firstSample: length, lastSample: length, minDurationMs: 0, lateMs: MAX_REORDER_MS },
      ],
    };
  }

  /**
   * 30–32 messages parked with the ignition off (at least 261 s, 3 minutes needed), then towed away from the
   * depot border with the ignition still off and 0 km/h reported: 0.57, 1.14, 1.71 … 4.56 × `distance` from
   * where it stood, then a minute standing there. The second fix beyond `distance` (the third of the tow) confirms
   * the movement; when fixes arrive late, a later one does. The drive after it starts at its base again.
   */
  tow(): Segment {
    const standing = this.dice.int(30, 32);
    const x = this.base + this.dice.real(-40, 40);
    const samples = Array.from({ length: standing }, () => this.at(x, 0, false));
    // away from the border, so that the tow crosses no geozone border
    const away = this.base === X_INSIDE ? -1 : 1;
    // eight fixes of the tow, then a minute set down where it ended, ignition still off: the drive after it
    // (ignition on, which ends the stop) comes so long after the fixes that can confirm the movement that no
    // reordering lets it overtake them
    for (let step = 1; step <= 8; step++) samples.push(this.at(x + away * step * TOW_STEP_M, 0, false));
    for (let rest = 0; rest < 6; rest++) samples.push(this.at(x + away * 8 * TOW_STEP_M, 0, false));
    return {
      name: 'tow',
      samples,
      episodes: [
        // the second fix beyond distance confirms it; when fixes come late, a later one does: the first fix
        // evaluated beyond distance is at most one reordering late, the next at most an interval and a reordering after it
        {
          rule: 'movement',
          kind: 'movement',
          firstSample: standing + 2,
          lastSample: standing + 2,
          minDurationMs: 0,
          lateMs: 2 * MAX_REORDER_MS + 2 * LONGEST_INTERVAL_MS,
        },
      ],
    };
  }

  /** 10–30 messages standing with the ignition off: parking is not idling. */
  parked(): Segment {
    const x = this.base;
    const samples = Array.from({ length: this.dice.int(10, 30) }, () => this.at(x, 0, false));
    return { name: 'parked (no alert)', samples, episodes: [] };
  }

  /**
   * The panic button pressed during ordinary driving and held for 1–3 messages: one press, one alert, at a
   * message showing it pressed (the first one, unless that one arrives late).
   */
  panic(): Segment {
    const length = this.dice.int(1, 3);
    const samples = Array.from({ length }, () => this.at(this.base + this.dice.real(-40, 40), this.dice.real(35, 70), true, true));
    return { name: 'panic', samples, episodes: [{ rule: 'panic', kind: 'panic', firstSample: 0, lastSample: length - 1, minDurationMs: 0 }] };
  }

  /**
   * Parked with the ignition off: 6 steady readings, the level moving by `change` litres over 6 more, then
   * steady for 20–26 readings (at least 171 s; the change settles after 120 s unless sensor noise keeps
   * setting new extremes). The alert may also come with the first message of the drive after it, which ends
   * the watch while parked; when that message arrives late, with the first one processed, at most 30 s later.
   */
  private fuelChange(rule: 'drain' | 'fuelling', change: number): Segment {
    const x = this.base + this.dice.real(-40, 40);
    const samples: Sample[] = [];
    for (let index = 0; index < 6; index++) samples.push(this.at(x, 0, false));
    const start = this.fuel;
    for (let index = 1; index <= 6; index++) {
      this.fuel = start + (change * index) / 6;
      samples.push(this.at(x, 0, false));
    }
    for (let index = this.dice.int(20, 26); index > 0; index--) samples.push(this.at(x, 0, false));
    return {
      name: rule,
      samples,
      episodes: [{ rule, kind: rule, firstSample: 6, lastSample: samples.length, minDurationMs: 0, lateMs: MAX_REORDER_MS }],
    };
  }

  /** 40–60 L taken from the tank while parked (never below 40 L left). */
  drain(): Segment {
    if (this.fuel < 120) return this.fuelling();
    return this.fuelChange('drain', -this.dice.real(FUEL_THRESHOLD_L + 25, FUEL_THRESHOLD_L + 45));
  }

  /** 80–120 L filled while parked (never above 600 L). */
  fuelling(): Segment {
    if (this.fuel > 480) return this.drain();
    return this.fuelChange('fuelling', this.dice.real(80, 120));
  }

  /**
   * The terminal stops reporting for 24–28 minutes while driving (a 10-minute limit; the sweep, every minute,
   * judges last-seen as of a minute ago): one loss, then one restoration with the next message.
   */
  silence(): Segment {
    return { name: 'silence', samples: [], silenceMs: this.dice.int(24 * 60_000, 28 * 60_000), episodes: [] };
  }

  /**
   * An alarm during ordinary driving, as Teltonika terminals report it: a harsh braking, acceleration or
   * cornering (io253) or a crash (io247) in 1–3 consecutive records, or jamming (io249) or a power cut (io66 far
   * below 6 V) in 3–6 records, over with the next record. All its readings lie within the minute that makes
   * them one event: one alert, at one of them.
   */
  alarm(): Segment {
    const kind = this.dice.pick<Record<string, string>>([
      [{ io253: '1' }, 1],
      [{ io253: '2' }, 1],
      [{ io253: '3' }, 1],
      [{ io247: '1' }, 1],
      [{ io249: '1' }, 1],
      [{ io66: '1800' }, 1],
    ]);
    const lasting = 'io249' in kind || 'io66' in kind;
    const length = lasting ? this.dice.int(3, 6) : this.dice.int(1, 3);
    const samples = Array.from({ length }, () => ({ ...this.at(this.base + this.dice.real(-40, 40), this.dice.real(35, 70)), alarm: kind }));
    return {
      name: 'alarm',
      samples,
      episodes: [{ rule: 'deviceAlarm', kind: 'deviceAlarm', firstSample: 0, lastSample: length - 1, minDurationMs: 0 }],
    };
  }

  /** External voltage dipping to 6.5–8 V for 3–6 records (an engine start): above the 6 V of a power cut. */
  voltageDip(): Segment {
    const samples = Array.from({ length: this.dice.int(3, 6) }, () => ({
      ...this.at(this.base, this.dice.real(0, 2)),
      alarm: { io66: String(this.dice.int(6_500, 8_000)) },
    }));
    return { name: 'voltageDip (no alert)', samples, episodes: [] };
  }

  /** Parked with the ignition off, one reading 30 L off in the middle: the median filter ignores it. */
  fuelSpike(): Segment {
    const length = this.dice.int(10, 14);
    const spikeAt = Math.floor(length / 2);
    const samples = Array.from({ length }, (_, index) => this.at(this.base, 0, false, false, index === spikeAt ? -30 : 0));
    return { name: 'fuelSpike (no alert)', samples, episodes: [] };
  }

  /** 15 messages at 55–65 km/h from one base to the other, across the depot border. */
  transit(): Segment {
    const from = this.base;
    const to = from === X_INSIDE ? X_OUTSIDE : X_INSIDE;
    const length = 15;
    const samples = Array.from({ length }, (_, index) => this.at(from + ((to - from) * (index + 1)) / length, this.dice.real(55, 65)));
    this.base = to;
    return { name: from === X_INSIDE ? 'trip out of the depot' : 'trip into the depot', samples, episodes: [] };
  }

  /** Drives to the border, lingers within ±20 m of it (inside the 50 m hysteresis), drives back: no crossing. */
  borderHover(): Segment {
    const from = this.base;
    const approach = 7;
    const samples: Sample[] = [];
    for (let index = 1; index <= approach; index++)
      samples.push(this.at(from + ((BORDER_X - from) * index) / (approach + 1), this.dice.real(30, 50)));
    for (let index = this.dice.int(4, 8); index > 0; index--) samples.push(this.at(BORDER_X + this.dice.real(-20, 20), this.dice.real(5, 20)));
    for (let index = approach; index >= 1; index--)
      samples.push(this.at(from + ((BORDER_X - from) * index) / (approach + 1), this.dice.real(30, 50)));
    return { name: 'borderHover (no alert)', samples, episodes: [] };
  }
}

type Activity =
  | 'speeding'
  | 'speedBlip'
  | 'nearLimit'
  | 'idle'
  | 'shortStop'
  | 'parked'
  | 'panic'
  | 'transit'
  | 'borderHover'
  | 'drain'
  | 'fuelling'
  | 'fuelSpike'
  | 'silence'
  | 'longPark'
  | 'tow'
  | 'alarm'
  | 'voltageDip';

const ACTIVITY_WEIGHTS: readonly (readonly [Activity, number])[] = [
  ['speeding', 4],
  ['transit', 4],
  ['idle', 2],
  ['panic', 2],
  ['drain', 1],
  ['fuelling', 1],
  ['fuelSpike', 1],
  ['silence', 1],
  ['speedBlip', 1],
  ['nearLimit', 1],
  ['shortStop', 1],
  ['parked', 1],
  ['borderHover', 1],
  ['longPark', 2],
  ['tow', 2],
  ['alarm', 2],
  ['voltageDip', 1],
];

/** Ordinary driving between two segments: 12–18 messages (at least 99 s), longer than every end condition. */
const GAP_MESSAGES: readonly [number, number] = [12, 18];

function planVehicle(dice: Dice, messageCount: number): DayPlanner {
  const planner = new DayPlanner(dice, dice.real(-800, 800), dice.int(0, 1) === 1);
  planner.add(planner.cruise(dice.int(...GAP_MESSAGES)));
  for (;;) {
    const activity = dice.pick(ACTIVITY_WEIGHTS);
    const before = planner.snapshot();
    const segment = planner[activity]();
    const gap = dice.int(...GAP_MESSAGES);
    if (planner.count + segment.samples.length + gap > messageCount) {
      planner.restore(before);
      break;
    }
    planner.add(segment);
    planner.add(planner.cruise(gap));
  }
  const rest = messageCount - planner.count;
  if (rest > 0) planner.add(planner.cruise(rest));
  return planner;
}

export function generateTrace(options: TraceOptions): Trace {
  const firstVehicleId = options.firstVehicleId ?? 1_001;
  const vehicles: VehicleTrace[] = [];
  const expected: ExpectedAlert[] = [];
  const planted: Record<string, number> = {};
  let end = 0;

  for (let index = 0; index < options.vehicles; index++) {
    const vehicleId = firstVehicleId + index;
    const dice = diceFor(options.seed, vehicleId);
    const planner = planVehicle(dice, options.messagesPerVehicle);
    let time = TRACE_START + dice.int(0, MESSAGE_INTERVAL_MS - 1);
    const messages: TerminalMessageInput[] = [];
    const times: number[] = [];
    const xs: number[] = [];
    const driving: boolean[] = [];

    const episodes: { episode: Segment['episodes'][number]; offset: number }[] = [];
    for (const segment of planner.segments) {
      planted[segment.name] = (planted[segment.name] ?? 0) + 1;
      const offset = messages.length;
      for (const sample of segment.samples) {
        const deviceTime = new Date(time).toISOString();
        messages.push({
          vehicleId,
          deviceTime,
          ...toLatLon(sample.x, sample.y),
          speed: sample.speed,
          course: 90,
          satellites: 12,
          parameters: {
            ignition: sample.ignition ? '1' : '0',
            panic: sample.panic ? '1' : '0',
            fuel: sample.fuel.toFixed(1),
            ...HEALTHY_TERMINAL,
            ...sample.alarm,
          },
        });
        times.push(time);
        xs.push(sample.x);
        driving.push(sample.speed > DRIVING_MAX_SPEED);
        time += MESSAGE_INTERVAL_MS + dice.int(-INTERVAL_JITTER_MS, INTERVAL_JITTER_MS);
      }
      for (const episode of segment.episodes) episodes.push({ episode, offset });
      if (segment.silenceMs !== undefined) {
        const lastMessage = times[offset - 1]!;
        time = lastMessage + segment.silenceMs;
        expected.push(connectionLost(vehicleId, lastMessage), {
          rule: 'connectionLoss',
          ruleId: REPLAY_RULE_IDS.connectionLoss,
          vehicleId,
          kind: 'connectionRestored',
          from: time,
          to: time + RESTORED_WITHIN_MS,
        });
      }
    }
    // the trace ends: every vehicle falls silent for good
    expected.push(connectionLost(vehicleId, times.at(-1)!));
    for (const { episode, offset } of episodes) {
      const last = times[offset + episode.lastSample];
      if (last === undefined) throw new Error(`vehicle ${vehicleId}: ${episode.kind} episode runs past the end of the trace`);
      expected.push({
        rule: episode.rule,
        ruleId: REPLAY_RULE_IDS[episode.rule],
        vehicleId,
        kind: episode.kind,
        from: times[offset + episode.firstSample]! + episode.minDurationMs,
        to: last + (episode.lateMs ?? 0),
      });
    }
    expected.push(...zoneCrossings(vehicleId, times, xs), ...drivingLimits(vehicleId, times, driving));
    end = Math.max(end, times.at(-1)!);
    vehicles.push({ vehicleId, messages });
  }
  return { options, vehicles, expected, end, planted };
}

/** The loss a silence after `lastMessage` owes, under a limit of `limitMs` (the replay's, unless told). */
export function connectionLost(vehicleId: number, lastMessage: number, limitMs: number = SILENCE_LIMIT_MS): ExpectedAlert {
  return {
    rule: 'connectionLoss',
    ruleId: REPLAY_RULE_IDS.connectionLoss,
    vehicleId,
    kind: 'connectionLost',
    from: lastMessage - LAST_SEEN_BEFORE_MS + limitMs,
    to: lastMessage + LAST_SEEN_AFTER_MS + limitMs,
  };
}

/**
 * Crossings of the depot border, read from the planted positions: the vehicle has crossed once it is clear of
 * the hysteresis band on the other side. The alert must come while it stays on that side.
 */
function zoneCrossings(vehicleId: number, times: readonly number[], xs: readonly number[]): ExpectedAlert[] {
  const crossings: ExpectedAlert[] = [];
  let side: 'inside' | 'outside' | undefined;
  let open: ExpectedAlert | undefined;
  xs.forEach((x, index) => {
    const now = sideOf(x);
    if (now === 'border') return;
    if (side !== undefined && now !== side) {
      open = {
        rule: 'geozone',
        ruleId: REPLAY_RULE_IDS.geozone,
        vehicleId,
        kind: now === 'outside' ? 'zoneExit' : 'zoneEntry',
        from: times[index]!,
        to: times[index]!,
      };
      crossings.push(open);
    }
    side = now;
    if (open) open.to = times[index]!;
  });
  return crossings;
}

/**
 * Continuous-driving alerts, read from the planted speeds. The time between two messages counts as what the
 * earlier one showed; a planted silence (24–28 minutes, a rest far over restMinutes once maxGap is counted as
 * driving) starts a new driving period, and every stop of the day is far shorter than restMinutes. In a period,
 * the warning and the alert each come once the planted driving reaches their threshold, give or take: each
 * change between driving and standing may move by the reordering delay (a late message is skipped), and a
 * stop is over only after minDriving of driving.
 */
function drivingLimits(vehicleId: number, times: readonly number[], driving: readonly boolean[]): ExpectedAlert[] {
  const alerts: ExpectedAlert[] = [];
  let start = 0;
  for (let end = 1; end <= times.length; end++) {
    if (end < times.length && times[end]! - times[end - 1]! <= LONGEST_INTERVAL_MS) continue;
    alerts.push(...drivingPeriod(vehicleId, times.slice(start, end), driving.slice(start, end)));
    start = end;
  }
  return alerts;
}

function drivingPeriod(vehicleId: number, times: readonly number[], driving: readonly boolean[]): ExpectedAlert[] {
  // planted driving so far, and changes between driving and standing so far, at each message
  const driven = [0];
  const changes = [0];
  let standingSince: number | null = driving[0] ? null : times[0]!;
  for (let index = 1; index < times.length; index++) {
    driven.push(driven[index - 1]! + (driving[index - 1] ? times[index]! - times[index - 1]! : 0));
    changes.push(changes[index - 1]! + (driving[index] === driving[index - 1] ? 0 : 1));
    if (driving[index] && standingSince !== null) {
      if (times[index]! - standingSince + MAX_REORDER_MS >= FULL_REST_MS) throw new Error(`vehicle ${vehicleId}: a stop comes near a full rest`);
      standingSince = null;
    } else if (!driving[index] && standingSince === null) standingSince = times[index]!;
  }
  const slack = (changeCount: number) => MAX_REORDER_MS * (changeCount + 1) + REST_END_MS + LONGEST_INTERVAL_MS;
  const alerts: ExpectedAlert[] = [];
  for (const [kind, threshold] of [
    ['drivingLimitNear', DRIVING_WARNING_MS],
    ['drivingLimit', DRIVING_LIMIT_MS],
  ] as const) {
    let margin = slack(0);
    let upper = -1;
    for (let settled = false; !settled;) {
      upper = driven.findIndex((ms) => ms >= threshold + margin);
      const wider = slack(changes[upper < 0 ? changes.length - 1 : upper]!);
      settled = wider === margin;
      margin = wider;
    }
    if (upper < 0) {
      if (driven.at(-1)! + margin >= threshold) throw new Error(`vehicle ${vehicleId}: a driving period ends near the ${kind} threshold`);
      continue;
    }
    const lower = driven.findIndex((ms) => ms >= threshold - margin);
    alerts.push({
      rule: 'continuousDriving',
      ruleId: REPLAY_RULE_IDS.continuousDriving,
      vehicleId,
      kind,
      from: times[lower]!,
      to: times[upper]! + MAX_REORDER_MS,
    });
  }
  return alerts;
}

/** Counts of expected alerts by kind, for summaries. */
export function countByKind(expected: readonly ExpectedAlert[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const alert of expected) counts[alert.kind] = (counts[alert.kind] ?? 0) + 1;
  return counts;
}
