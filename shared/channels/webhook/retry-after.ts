/**
 * A `Retry-After` header (RFC 9110 §10.2.3) in seconds from `now` (epoch ms): either a number of seconds or an
 * HTTP date. Undefined when absent, malformed, or not in the future.
 */
export function retryAfterSeconds(header: string | string[] | undefined, now: number): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) > 0 ? Number(value) : undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  const seconds = Math.ceil((at - now) / 1000);
  return seconds > 0 ? seconds : undefined;
}
