import { isIP } from 'node:net';
import { addressRefusal } from './address-policy';

const MAX_URL_LENGTH = 2_000;

/**
 * Problems of a URL offered as a webhook endpoint, as messages for a 400 (empty when it is acceptable): HTTPS
 * only, no user name or password in it, not `localhost` nor a literal private address. Names are resolved
 * and checked again at each delivery (see `guarded-lookup.ts`); this only refuses what is wrong already.
 */
export function endpointUrlProblems(raw: string, allowPrivate: boolean): string[] {
  if (raw.length > MAX_URL_LENGTH) return [`must be at most ${MAX_URL_LENGTH} characters`];
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return ['must be an absolute URL'];
  }
  const problems: string[] = [];
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) problems.push(allowPrivate ? 'must be an http or https URL' : 'must be an https URL');
  if (url.username || url.password) problems.push('must not carry a user name or password; the signature authenticates fleetwatch');
  if (url.hash) problems.push('must not have a fragment');
  if (!allowPrivate) {
    // `localhost.` is `localhost`: a fully qualified name ends in a dot, and resolvers ignore it
    const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
    if (isIP(host)) {
      const refusal = addressRefusal(host);
      if (refusal) problems.push(`must reach a public address: ${refusal}`);
    } else if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
      problems.push('must name a public host');
    }
  }
  return problems;
}
