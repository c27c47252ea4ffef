import { existsSync, readFileSync } from 'node:fs';
import * as z from 'zod';
import { ConfigError } from '../../shared/config';

/** Where `cdk deploy` reads its project settings, at the repository's root. */
export const CDK_JSON_PATH = new URL('../../cdk.json', import.meta.url);

const cdkJsonSchema = z.object({ context: z.record(z.string(), z.unknown()).default({}) });

/** The `context` object of cdk.json, which `cdk deploy` merges under the `-c` values; none without the file. */
export function cdkJsonContext(path: URL | string = CDK_JSON_PATH): Record<string, unknown> {
  if (!existsSync(path)) return {};
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`cdk.json is not JSON: ${(error as Error).message}`);
  }
  const parsed = cdkJsonSchema.safeParse(json);
  if (!parsed.success) throw new ConfigError('cdk.json: "context" must be an object');
  return parsed.data.context;
}
