import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_SCHEMA, clientSchema } from '../../infra/docs/client-schema';

describe('shared/api/client/schema.ts', () => {
  it('is what npm run client:generate writes from the served OpenAPI document', async () => {
    expect(readFileSync(CLIENT_SCHEMA, 'utf8')).toBe(await clientSchema());
  });
});
