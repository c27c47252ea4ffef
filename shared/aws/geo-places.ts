import type * as GeoPlacesSdkModule from '@aws-sdk/client-geo-places';
import type { GeocodeCommandInput, GeocodeCommandOutput, GeoPlacesClient } from '@aws-sdk/client-geo-places';
import { cachedClient } from './client-cache';

/**
 * Amazon Location Service's Places API (v2), for geocoding addresses of address rules when they are written.
 * Loaded on first use: only the API function geocodes, and only for an address rule sent without coordinates.
 */
type GeoPlacesSdk = typeof GeoPlacesSdkModule;
let sdk: Promise<GeoPlacesSdk> | undefined;
const loadSdk = (): Promise<GeoPlacesSdk> => (sdk ??= import('@aws-sdk/client-geo-places'));

const client = cachedClient(async (): Promise<GeoPlacesClient> => new (await loadSdk()).GeoPlacesClient({}));

export async function geocode(input: GeocodeCommandInput): Promise<GeocodeCommandOutput> {
  const { GeocodeCommand } = await loadSdk();
  return (await client()).send(new GeocodeCommand(input));
}
