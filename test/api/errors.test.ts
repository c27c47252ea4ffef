import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRoute } from '../../shared/api/route';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { apiClient } from './support';

/**
 * Raw requests, not the typed client: these tests call routes defined here, outside the OpenAPI document, and
 * check the protocol of the answers themselves (status, headers, body) when a handler fails unexpectedly.
 */
describe('unexpected failures', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('api-errors');
  });
  afterAll(async () => emulators.stop());

  it('answer 500 with a correlation id and nothing of the internals', async () => {
    const failing = defineRoute({
      method: 'GET',
      path: '/api/v3/failing',
      operationId: 'failing',
      tag: 'meta',
      description: 'fails on purpose',
      summary: 'fails',
      auth: false,
      writes: false,
      response: z.object({}),
      async handle() {
        throw new Error('connection string postgres://secret@db');
      },
    });
    const api = apiClient({ routes: [failing] });
    const response = await api({ method: 'GET', path: '/api/v3/failing' });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: 'InternalError', message: expect.any(String), correlationId: expect.any(String) });
    expect(response.headers['X-Correlation-Id']).toBe(response.body.correlationId);
    expect(JSON.stringify(response.body)).not.toContain('secret');
  });
});
