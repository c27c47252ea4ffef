import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Fleetwatch-Signature';

/** Hex HMAC-SHA256 of `<t>.<body>` with the endpoint's secret. */
function sign(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, one `v1` per secret (the previous one too during a
 * rotation's overlap): the `fleetwatch-v1` scheme of endpoints registered before Standard Webhooks.
 */
export function signatureHeader(secrets: readonly string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${sign(secret, timestamp, body)}`)].join(',');
}

/**
 * What a receiver does with the header: true when one `v1` signature matches the body and `t` is within
 * `toleranceSeconds` of `now` (so a captured request cannot be replayed later).
 */
export function verifySignature(header: string | undefined, body: string, secret: string, now: number, toleranceSeconds = 300): boolean {
  if (!header) return false;
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamp = Number(parts.find(([name]) => name === 't')?.[1]);
  if (!Number.isInteger(timestamp) || Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(secret, timestamp, body), 'hex');
  return parts
    .filter(([name]) => name === 'v1')
    .some(([, value]) => {
      const given = Buffer.from(value ?? '', 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
