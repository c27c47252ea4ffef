import * as z from 'zod';
import { geocode } from '../aws/geo-places';
import type { NotificationBody } from '../schemas/notification';
import { addressSettingsSchema, hasCoordinates } from '../rules/address';
import { MISSING_COORDINATES } from '../rules/rule-validation';
import { logger } from '../observability/logger';
import { ApiError, validationError } from './errors';
import { apiSchema, readConfig } from '../config';

/**
 * Address rules (type 10) work on coordinates. A rule written with an address and no coordinates has them found
 * once, here, by the installation's geocoder, and stored with it; without a geocoder (the local stack, or a
 * deployment that turned it off) the API answers 400 asking for latitude and longitude.
 */
export type Geocoder = (address: string) => Promise<{ latitude: number; longitude: number } | null>;

/** `GEOCODER=amazon-location` (set by the stack) turns geocoding on; `none` (default) leaves it off. */
export function configuredGeocoder(env?: Record<string, string | undefined>): Geocoder | undefined {
  return readConfig(apiSchema(), env).GEOCODER === 'amazon-location' ? amazonLocationGeocoder : undefined;
}

/** A geocoder's position, [longitude, latitude] in WGS 84, checked before it is stored. */
const positionSchema = z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]);

const amazonLocationGeocoder: Geocoder = async (address) => {
  const output = await geocode({ QueryText: address, MaxResults: 1 });
  const position = positionSchema.safeParse(output.ResultItems?.[0]?.Position);
  return position.success ? { latitude: position.data[1], longitude: position.data[0] } : null;
};

export async function withAddressLocated<Body extends NotificationBody>(body: Body, geocoder = configuredGeocoder()): Promise<Body> {
  if (body.type !== 10) return body;
  const settings = addressSettingsSchema.parse(body.settings);
  if (hasCoordinates(settings)) return body;
  if (geocoder === undefined) {
    throw validationError([
      { path: 'settings.latitude', message: `${MISSING_COORDINATES}: this installation has no geocoder, send latitude and longitude` },
    ]);
  }
  let found: Awaited<ReturnType<Geocoder>>;
  try {
    found = await geocoder(settings.address.trim());
  } catch (error) {
    // the address itself is not logged: it is the client's data
    logger.error('geocoding failed', { error });
    throw new ApiError(503, 'GeocoderUnavailable', 'the geocoder did not answer: send latitude and longitude, or try again later');
  }
  if (found === null) {
    throw validationError([{ path: 'settings.address', message: 'the geocoder found no place for this address: send latitude and longitude' }]);
  }
  return { ...body, settings: { ...body.settings, latitude: String(found.latitude), longitude: String(found.longitude) } };
}
