import type { Alert } from '../schemas/alert';
import type { Language } from '../schemas/directory';
import type { RuleTimeZone } from '../rules/time-zone';
import { formatEventTime } from './format-time';

/**
 * The placeholders every notification template (and a rule's own `settings.messageTemplate`) can use.
 * Values are plain, unescaped text; the renderer escapes them for each format.
 */
export interface TemplateData {
  kind: string;
  vehicle: string;
  vehicleId: string;
  rule: string;
  time: string;
  /** Speed of the vehicle at the event, km/h, rounded; '' when unknown. */
  speed: string;
  /** Speed limit, km/h. */
  limit: string;
  /** Highest speed of a speeding episode, km/h. */
  maxSpeed: string;
  zone: string;
  /** The address of an address rule (type 10), as written on the rule. */
  address: string;
  /** Fuel volume of a drain or fuelling, litres, and the levels before and after. */
  volume: string;
  before: string;
  after: string;
  /** Sensor (message parameter) name. */
  sensor: string;
  /** Sensor or counter value. */
  value: string;
  /** Bounds of an analog sensor's range. */
  min: string;
  max: string;
  /** Length of an idle or a silence, minutes. */
  minutes: string;
  /** When a silent vehicle was last heard from, in the rule's timezone. */
  lastSeen: string;
  /** When a rule over its `maxPerDay` alerts again (limitReached), in the rule's timezone. */
  resumes: string;
  /** Maintenance: the counter (`mileage` or `engineHours`), the threshold reached, the service interval, the unit (km, h). */
  counter: string;
  threshold: string;
  interval: string;
  unit: string;
  latitude: string;
  longitude: string;
  /** `55.75580, 37.61730`, or '' without a position. */
  position: string;
  /** OpenStreetMap link to the position, or ''. */
  mapUrl: string;
  /** Every value the evaluator attached to the event, as text. */
  values: Record<string, string>;
}

type Values = Alert['event']['values'];

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(Math.round(value * 100) / 100) : '';
  return String(value);
}

/** The first of several names an evaluator may have used for a value. */
function pick(values: Values, ...names: string[]): string {
  for (const name of names) {
    const value = text(values[name]);
    if (value !== '') return value;
  }
  return '';
}

function rounded(value: string, digits: number): string {
  const number = Number(value);
  if (value === '' || !Number.isFinite(number)) return value;
  const factor = 10 ** digits;
  return String(Math.round(number * factor) / factor);
}

export function openStreetMapUrl(latitude: number, longitude: number): string {
  const lat = latitude.toFixed(5);
  const lon = longitude.toFixed(5);
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=16/${lat}/${lon}`;
}

export function buildTemplateData(input: {
  alert: Pick<Alert, 'event' | 'ruleName' | 'vehicleId'>;
  vehicleName: string;
  timezone: RuleTimeZone;
  language: Language;
}): TemplateData {
  const { event } = input.alert;
  const values = event.values;
  const hasPosition = event.latitude !== null && event.longitude !== null;
  const speed = event.speed ?? values.speed;
  return {
    kind: event.kind,
    vehicle: input.vehicleName,
    vehicleId: String(input.alert.vehicleId),
    rule: input.alert.ruleName,
    time: formatEventTime(event.time, input.timezone, input.language),
    speed: rounded(text(speed), 0),
    limit: rounded(pick(values, 'limit'), 0),
    maxSpeed: rounded(pick(values, 'maxSpeed'), 0),
    zone: pick(values, 'zoneName'),
    address: pick(values, 'address'),
    volume: rounded(pick(values, 'volume'), 1),
    before: rounded(pick(values, 'before'), 1),
    after: rounded(pick(values, 'after'), 1),
    sensor: pick(values, 'sensorName', 'parameter'),
    value: pick(values, 'value'),
    min: pick(values, 'min'),
    max: pick(values, 'max'),
    // the measured length first; `minutes` alone is the rule's threshold (connection loss)
    minutes: rounded(pick(values, 'idleMinutes', 'silentMinutes', 'durationMinutes', 'minutes'), 0),
    lastSeen: typeof values.lastSeenAt === 'string' ? formatEventTime(values.lastSeenAt, input.timezone, input.language) : '',
    resumes: typeof values.resumesAt === 'string' ? formatEventTime(values.resumesAt, input.timezone, input.language) : '',
    counter: pick(values, 'counter'),
    threshold: rounded(pick(values, 'threshold'), 0),
    interval: rounded(pick(values, 'interval'), 0),
    unit: pick(values, 'unit'),
    latitude: hasPosition ? event.latitude!.toFixed(5) : '',
    longitude: hasPosition ? event.longitude!.toFixed(5) : '',
    position: hasPosition ? `${event.latitude!.toFixed(5)}, ${event.longitude!.toFixed(5)}` : '',
    mapUrl: hasPosition ? openStreetMapUrl(event.latitude!, event.longitude!) : '',
    values: Object.fromEntries(Object.entries(values).map(([name, value]) => [name, text(value)])),
  };
}
