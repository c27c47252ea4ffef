import { notificationBodySchema, type NotificationBody } from '../../shared/schemas/notification';
import type { Geozone } from '../../shared/schemas/geozone';
import type { TerminalMessage } from '../../shared/schemas/terminal-message';

import { PARENT_ID, T0 } from '../support/fixtures';

export { PARENT_ID, T0, storedRule } from '../support/fixtures';

export function body(overrides: Partial<NotificationBody> = {}): NotificationBody {
  return { ...notificationBodySchema.parse({ type: 2, parentId: PARENT_ID, name: 'rule' }), ...overrides };
}

export function message(secondsAfterT0: number, overrides: Partial<TerminalMessage> = {}): TerminalMessage {
  return {
    vehicleId: 1,
    deviceTime: new Date(T0 + secondsAfterT0 * 1000).toISOString(),
    latitude: 55.75,
    longitude: 37.62,
    speed: 0,
    parameters: {},
    ...overrides,
  };
}

export const CENTER = { lat: 55.75, lon: 37.62 };
const M_PER_DEG = 6_371_008.8 * (Math.PI / 180);

/** The point `north` and `east` metres away from (lat, lon). */
export function offset(lat: number, lon: number, north: number, east: number): { lat: number; lon: number } {
  return { lat: lat + north / M_PER_DEG, lon: lon + east / (M_PER_DEG * Math.cos((lat * Math.PI) / 180)) };
}

function squareRing(lat: number, lon: number, half: number): [number, number][] {
  const corners = [offset(lat, lon, -half, -half), offset(lat, lon, -half, half), offset(lat, lon, half, half), offset(lat, lon, half, -half)];
  return [...corners, corners[0]!].map((p) => [p.lon, p.lat]);
}

const zoneBase = { parentId: PARENT_ID, description: '', area: 0, perimetr: 0, createDate: new Date(T0).toISOString(), version: 1 };

/** A square polygon zone `2 × half` metres wide, optionally with a square hole `2 × holeHalf` wide. */
export function squareZone(
  id: number,
  half: number,
  options: { center?: { lat: number; lon: number }; holeHalf?: number; name?: string } = {},
): Geozone {
  const { lat, lon } = options.center ?? CENTER;
  const rings = [squareRing(lat, lon, half)];
  if (options.holeHalf !== undefined) rings.push(squareRing(lat, lon, options.holeHalf).reverse());
  return { ...zoneBase, id, name: options.name ?? `zone ${id}`, type: 'polygon', radius: null, geometry: { type: 'Polygon', coordinates: rings } };
}

export function circleZone(id: number, radius: number, options: { center?: { lat: number; lon: number }; name?: string } = {}): Geozone {
  const { lat, lon } = options.center ?? CENTER;
  return { ...zoneBase, id, name: options.name ?? `circle ${id}`, type: 'circle', radius, geometry: { type: 'Point', coordinates: [lon, lat] } };
}

/** A fix `north` metres from the centre, `s` seconds after T0, with the ignition as given (absent: not reported). */
export function northFix(s: number, options: { north?: number; speed?: number; ignition?: string } = {}): TerminalMessage {
  const p = offset(CENTER.lat, CENTER.lon, options.north ?? 0, 0);
  return message(s, {
    latitude: p.lat,
    longitude: p.lon,
    speed: options.speed ?? 0,
    parameters: options.ignition === undefined ? {} : { ignition: options.ignition },
  });
}
