import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, apiClient, login, ruleBody, seedTenants, type Api } from './support';

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
  let api: Api;
  let token = '';
  let places: Server;
  const asked: GeocodeRequest[] = [];
  let placesDown = false;
  const clock = new TestClock();

  const create = (settings: Record<string, string>) =>
    api({
      method: 'POST',
      path: '/api/v3/notifications',
      token,
      body: ruleBody(tenants.root.agentId, { type: 10, name: 'At the client', settings }),
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
    process.env.AWS_ENDPOINT_URL_GEO_PLACES = `http://127.0.0.1:${(places.address() as AddressInfo).port}`;
    emulators = await startTestEmulators('api-address-rules');
    tenants = await seedTenants('address');
    api = apiClient({ now: clock.now });
    token = await login(api, tenants.root);
  });
  afterEach(() => {
    delete process.env.GEOCODER;
    placesDown = false;
    asked.length = 0;
  });
  afterAll(async () => {
    await emulators.stop();
    await new Promise((resolve) => places.close(resolve));
  });

  it('stores a rule given with coordinates as sent, with the defaults of its settings', async () => {
    const response = await create({ address: 'Nizami 10, Baku', latitude: '40.3777', longitude: '49.8467' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ type: 10, settings: { address: 'Nizami 10, Baku', latitude: '40.3777', longitude: '49.8467' } });
    expect(asked).toEqual([]);
  });

  it('answers 400 asking for latitude and longitude where the installation has no geocoder (the local stack)', async () => {
    const response = await create({ address: 'Nizami 10, Baku' });
    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([{ path: 'settings.latitude', message: expect.stringMatching(/no geocoder.*latitude and longitude/) }]);
    expect(asked).toEqual([]);
  });

  it('has the geocoder find the coordinates once, at write time, and stores them with the rule', async () => {
    process.env.GEOCODER = 'amazon-location';
    const response = await create({ address: 'Nizami 10, Baku', radius: '150' });
    expect(response.status).toBe(200);
    expect(asked).toEqual([{ QueryText: 'Nizami 10, Baku', MaxResults: 1 }]);
    const stored = await api({ method: 'GET', path: `/api/v3/notifications/${response.body.id}`, token });
    expect(stored.body.settings).toEqual({ address: 'Nizami 10, Baku', radius: '150', latitude: '40.3777', longitude: '49.8467' });
    expect(stored.body.problems).toBeUndefined();
  });

  it('answers 400 when the geocoder finds no place, and 503 when it does not answer', async () => {
    process.env.GEOCODER = 'amazon-location';
    const unknown = await create({ address: 'Nowhere street 0' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues).toEqual([{ path: 'settings.address', message: expect.stringMatching(/found no place/) }]);
    placesDown = true;
    const down = await create({ address: 'Nizami 10, Baku' });
    expect(down.status).toBe(503);
    expect(down.body.error).toBe('GeocoderUnavailable');
  });

  it('answers 400 for half a point or a margin as wide as the radius, before any geocoding', async () => {
    process.env.GEOCODER = 'amazon-location';
    const half = await create({ address: 'Nizami 10, Baku', latitude: '40.3777' });
    expect(half.status).toBe(400);
    expect(half.body.issues.map((issue: { path: string }) => issue.path)).toEqual(['settings.latitude']);
    const wide = await create({ latitude: '40.3777', longitude: '49.8467', radius: '30', margin: '30' });
    expect(wide.status).toBe(400);
    expect(wide.body.issues.map((issue: { path: string }) => issue.path)).toEqual(['settings.margin']);
    expect(asked).toEqual([]);
  });
});
