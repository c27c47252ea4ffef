import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, login, ruleBody, seedTenants, session, typedApiClient, type JsonBody, type TypedApi } from './support';

/**
 * Address rules (type 10) over HTTP. Amazon Location Service has no emulator: the Places API is faked here by a
 * loopback HTTP server that answers the SDK's `POST /v2/geocode` as the service documents it, and records what it
 * was asked. The SDK client is the real one, pointed at it by AWS_ENDPOINT_URL_GEO_PLACES.
 */
interface GeocodeRequest {
  QueryText?: string;
  MaxResults?: number;
}

const PLACES: Record<string, [number, number]> = { 'Nizami 10, Baku': [49.8467, 40.3777] };

describe('address rules (type 10)', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  let token = '';
  let places: Server;
  const asked: GeocodeRequest[] = [];
  let placesDown = false;
  const clock = new TestClock();

  const create = (settings: Record<string, string>) =>
    api.POST('/api/v3/notifications', {
      headers: session(token),
      body: ruleBody(tenants.root.agentId, { type: 10, name: 'At the client', settings }) as JsonBody<'createNotificationRule'>,
    });

  beforeAll(async () => {
    places = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        const body = JSON.parse(text) as GeocodeRequest;
        asked.push(body);
        if (placesDown || request.url !== '/v2/geocode') {
          response.writeHead(500, { 'content-type': 'application/json', 'x-amzn-errortype': 'InternalServerException' });
          response.end(JSON.stringify({ message: 'internal error' }));
          return;
        }
        const position = PLACES[body.QueryText ?? ''];
        const items = position ? [{ PlaceId: 'p1', PlaceType: 'PointAddress', Title: body.QueryText, Position: position }] : [];
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ ResultItems: items }));
      });
    });
    await new Promise<void>((resolve) => places.listen(0, '127.0.0.1', resolve));
    vi.stubEnv('AWS_ENDPOINT_URL_GEO_PLACES', `http://127.0.0.1:${(places.address() as AddressInfo).port}`);
    emulators = await startTestEmulators('api-address-rules');
    tenants = await seedTenants('address');
    api = typedApiClient({ now: clock.now });
    token = await login(api, tenants.root);
  });
  afterEach(() => {
    vi.stubEnv('GEOCODER', undefined);
    placesDown = false;
    asked.length = 0;
  });
  afterAll(async () => {
    await emulators.stop();
    await new Promise((resolve) => places.close(resolve));
  });

  it('stores a rule given with coordinates as sent, with the defaults of its settings', async () => {
    const response = await create({ address: 'Nizami 10, Baku', latitude: '40.3777', longitude: '49.8467' });
    expect(response.response.status).toBe(200);
    expect(response.data).toMatchObject({ type: 10, settings: { address: 'Nizami 10, Baku', latitude: '40.3777', longitude: '49.8467' } });
    expect(asked).toEqual([]);
  });

  it('answers 400 asking for latitude and longitude where the installation has no geocoder (the local stack)', async () => {
    const response = await create({ address: 'Nizami 10, Baku' });
    expect(response.response.status).toBe(400);
    expect(response.error?.issues).toEqual([{ path: 'settings.latitude', message: expect.stringMatching(/no geocoder.*latitude and longitude/) }]);
    expect(asked).toEqual([]);
  });

  it('has the geocoder find the coordinates once, at write time, and stores them with the rule', async () => {
    vi.stubEnv('GEOCODER', 'amazon-location');
    const response = await create({ address: 'Nizami 10, Baku', radius: '150' });
    expect(response.response.status).toBe(200);
    expect(asked).toEqual([{ QueryText: 'Nizami 10, Baku', MaxResults: 1 }]);
    const stored = await api.GET('/api/v3/notifications/{id}', { headers: session(token), params: { path: { id: response.data!.id } } });
    expect(stored.data?.settings).toEqual({ address: 'Nizami 10, Baku', radius: '150', latitude: '40.3777', longitude: '49.8467' });
    expect(stored.data?.problems).toBeUndefined();
  });

  it('answers 400 when the geocoder finds no place, and 503 when it does not answer', async () => {
    vi.stubEnv('GEOCODER', 'amazon-location');
    const unknown = await create({ address: 'Nowhere street 0' });
    expect(unknown.response.status).toBe(400);
    expect(unknown.error?.issues).toEqual([{ path: 'settings.address', message: expect.stringMatching(/found no place/) }]);
    placesDown = true;
    const down = await create({ address: 'Nizami 10, Baku' });
    expect(down.response.status).toBe(503);
    expect(down.error?.error).toBe('GeocoderUnavailable');
  });

  it('answers 400 for half a point or a margin as wide as the radius, before any geocoding', async () => {
    vi.stubEnv('GEOCODER', 'amazon-location');
    const half = await create({ address: 'Nizami 10, Baku', latitude: '40.3777' });
    expect(half.response.status).toBe(400);
    expect(half.error?.issues?.map((issue) => issue.path)).toEqual(['settings.latitude']);
    const wide = await create({ latitude: '40.3777', longitude: '49.8467', radius: '30', margin: '30' });
    expect(wide.response.status).toBe(400);
    expect(wide.error?.issues?.map((issue) => issue.path)).toEqual(['settings.margin']);
    expect(asked).toEqual([]);
  });
});
