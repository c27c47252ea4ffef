import { publicLinksSchema, readConfig } from '../config';

/**
 * Public links in e-mails (address confirmation, one-click unsubscribe, the alert's page, mute) point at the HTTP API:
 * `PUBLIC_API_URL` (the stack sets it to its `ApiUrl` output, ending in `/api/v3`), else the local API of `npm start`.
 */
export function publicApiUrl(env?: Record<string, string | undefined>): string {
  const { PUBLIC_API_URL, FLEETWATCH_API_PORT } = readConfig(publicLinksSchema(), env);
  const base = PUBLIC_API_URL ?? `http://127.0.0.1:${FLEETWATCH_API_PORT}/api/v3/`;
  return base.endsWith('/') ? base : `${base}/`;
}

export const confirmEmailLink = (token: string) => `${publicApiUrl()}email/confirm/${token}`;
export const unsubscribeLink = (token: string) => `${publicApiUrl()}email/unsubscribe/${token}`;
/** The alert's page, whose address is the one the one-click acknowledge link always had (a POST with no body still acknowledges). */
export const alertPageLink = (token: string) => `${publicApiUrl()}alerts/acknowledge/${token}`;
/**
 * The alert's page as a path on the API's own host, for the short link's redirect: the api function has no
 * PUBLIC_API_URL (its own URL would make the stack circular), and the same host is right under any domain.
 */
export const alertPagePath = (token: string) => `/api/v3/alerts/acknowledge/${token}`;
/** The short link of an alert SMS (shared/api/routes/short-links.ts), which redirects to the alert's page. */
export const shortAlertLink = (code: string) => `${publicApiUrl()}alerts/s/${code}`;
export const muteLink = (token: string) => `${publicApiUrl()}alerts/mute/${token}`;

/** The RFC 8058 one-click unsubscribe headers of an alert e-mail. */
export function listUnsubscribeHeaders(token: string): { name: string; value: string }[] {
  return [
    { name: 'List-Unsubscribe', value: `<${unsubscribeLink(token)}>` },
    { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
  ];
}
