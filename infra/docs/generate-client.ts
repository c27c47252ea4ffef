/**
 * `npm run client:generate`: rewrites shared/api/client/schema.ts, the types of the typed client, from the OpenAPI
 * document the API serves.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { CLIENT_SCHEMA, clientSchema } from './client-schema';

const generated = await clientSchema();
const committed = existsSync(CLIENT_SCHEMA) ? readFileSync(CLIENT_SCHEMA, 'utf8') : '';
if (generated !== committed) writeFileSync(CLIENT_SCHEMA, generated);
console.log(generated === committed ? 'shared/api/client/schema.ts is up to date' : 'shared/api/client/schema.ts rewritten');
