import { createHmac, timingSafeEqual } from 'node:crypto';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import type * as z from 'zod';

/**
 * Tokens handed out and taken back by fleetwatch itself (history page tokens, acknowledge links): a JSON payload,
 * base64url, then `.` and its HMAC-SHA256 over `<context>\n<payload>`. The context binds a token to what it may be
 * used for (a purpose, or the query that made it), so one made for something else never verifies.
 */
export interface SigningKey {
  (): Promise<string>;
  /** Forgets the cached key (for tests that change it). */
  forget(): void;
}

/**
 * The key in the Secrets Manager secret `secretId()` names, read once per process (a failed read is not cached, so
 * the next request tries again); `fixedKey` when no secret is configured, which only the tests do.
 */
export function signingKey(what: string, secretId: () => string | undefined, fixedKey: string): SigningKey {
  let cached: Promise<string> | undefined;
  const load = async () => {
    const id = secretId();
    if (id === undefined) return fixedKey;
    const value = await getSecret(id, { maxAge: 24 * 3600 });
    if (typeof value !== 'string' || value.length < 32) throw new Error(`${what} secret ${id} is not a string of 32 or more characters`);
    return value;
  };
  const key = (() => {
    cached ??= load().catch((error: unknown) => {
      cached = undefined;
      throw error;
    });
    return cached;
  }) as SigningKey;
  key.forget = () => {
    cached = undefined;
  };
  return key;
}

const mac = (key: string, context: string, payload: string) => createHmac('sha256', key).update(`${context}\n${payload}`).digest();

export function signToken(key: string, context: string, body: unknown): string {
  const payload = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
  return `${payload}.${mac(key, context, payload).toString('base64url')}`;
}

/** The payload of a token signed with this key and context, parsed by `schema`; null for anything else. */
export function openToken<T extends z.ZodType>(key: string, context: string, token: string, schema: T): z.infer<T> | null {
  const [payload, signature, ...rest] = token.split('.');
  if (payload === undefined || signature === undefined || rest.length > 0) return null;
  const expected = mac(key, context, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
