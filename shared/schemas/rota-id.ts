import * as z from 'zod';

const GUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
export const RANDOM_ID = '[A-Za-z0-9_-]{22}';

/** A rota's id, `<clientId>.<22 base64url characters>`: the client is read from it, with no index. */
export const rotaIdSchema = z
  .string()
  .regex(new RegExp(`^${GUID}\\.${RANDOM_ID}$`), 'a rota id')
  .describe('the rota: `<parentId>.<22 base64url characters>`');
