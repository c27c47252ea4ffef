import * as z from 'zod';
import { alertLinkSchema, readConfig } from '../config';
import { openToken, signToken, signingKey } from './signed-token';

/**
 * The token of an alert's link (in its e-mail and push notification), which leads to the alert's page: which alert,
 * who the link was sent to, the fleetwatch user behind that address or device when there is one, the language of
 * its page, and until when it works, signed with HMAC-SHA256. It needs no login, acts on that one alert only, and
 * expires after ALERT_LINK_TTL_DAYS. Without a user (a side address, or a link signed before users were named) it
 * may only acknowledge; with one, that user is checked whenever the link acts.
 */
export const ALERT_LINK_TTL_DAYS = 7;

// without ALERT_LINK_SECRET_ID (tests only): a fixed, public key
const FIXED_KEY = 'fleetwatch-alert-link-fixed-key';
const PURPOSE = 'acknowledge';

const payloadSchema = z.object({
  p: z.literal(PURPOSE),
  a: z.string().regex(/^[0-9a-f]{32}$/),
  b: z.string().min(1).max(320),
  u: z.uuid({ version: undefined }).optional(),
  l: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  e: z.number().int(),
});

/** What a valid link says: the alert, to whom it was sent (`email:<address>` or `push:<login>`), its page's language. */
export interface AlertLink {
  alertId: string;
  sentTo: string;
  /** The fleetwatch user the address or device belongs to; absent for a side address. */
  userId?: string | undefined;
  language: 1 | 2 | 3;
  /** Epoch seconds after which the link no longer works. */
  expiresAt: number;
}

/**
 * What a token is: a link (`ok`), or why not. `expired` is a link fleetwatch signed whose week is over (its
 * language is still known); `invalid`, anything else: altered, signed with another key, or no token at all.
 */
export type LinkCheck<Link> = { ok: true; link: Link } | { ok: false; reason: 'invalid' } | { ok: false; reason: 'expired'; language: 1 | 2 | 3 };

function checked<Payload extends { e: number; l: 1 | 2 | 3 }, Link>(
  parsed: Payload | null,
  now: number,
  link: (payload: Payload) => Link,
): LinkCheck<Link> {
  if (parsed === null) return { ok: false, reason: 'invalid' };
  if (parsed.e * 1000 <= now) return { ok: false, reason: 'expired', language: parsed.l };
  return { ok: true, link: link(parsed) };
}

const alertLinkKey = signingKey('alert link', () => readConfig(alertLinkSchema()).ALERT_LINK_SECRET_ID, FIXED_KEY);

/** Forgets the cached key (for tests that change it). */
export const forgetAlertLinkKey = () => alertLinkKey.forget();

/** Epoch seconds after which a link signed at `now` no longer works. */
export const alertLinkExpiry = (now: number): number => Math.floor(now / 1000) + ALERT_LINK_TTL_DAYS * 86_400;

export async function signAlertLink(link: Omit<AlertLink, 'expiresAt'>, now: number): Promise<string> {
  const expiresAt = alertLinkExpiry(now);
  const body: z.infer<typeof payloadSchema> = {
    p: PURPOSE,
    a: link.alertId,
    b: link.sentTo,
    ...(link.userId === undefined ? {} : { u: link.userId }),
    l: link.language,
    e: expiresAt,
  };
  return signToken(await alertLinkKey(), PURPOSE, body);
}

/** The link a token carries, or why it carries none. */
export async function verifyAlertLink(token: string, now: number): Promise<LinkCheck<AlertLink>> {
  return checked(openToken(await alertLinkKey(), PURPOSE, token, payloadSchema), now, (parsed) => ({
    alertId: parsed.a,
    sentTo: parsed.b,
    ...(parsed.u === undefined ? {} : { userId: parsed.u }),
    language: parsed.l,
    expiresAt: parsed.e,
  }));
}

const MUTE_PURPOSE = 'mute';

const mutePayloadSchema = z.object({
  p: z.literal(MUTE_PURPOSE),
  a: z.string().regex(/^[0-9a-f]{32}$/),
  u: z.uuid({ version: undefined }),
  m: z.enum(['vehicle', 'rule']),
  l: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  e: z.number().int(),
});

/**
 * What a valid mute link of an alert's e-mail says: the alert, what to mute (its vehicle for an hour, its rule until
 * tomorrow 08:00), the fleetwatch user it was sent to (who is checked again when the link is used), its page's
 * language. Signed under its own purpose, so an acknowledge link never mutes, and expiring as those do.
 */
export interface AlertMuteLink {
  alertId: string;
  userId: string;
  action: 'vehicle' | 'rule';
  language: 1 | 2 | 3;
  expiresAt: number;
}

export async function signAlertMuteLink(link: Omit<AlertMuteLink, 'expiresAt'>, now: number): Promise<string> {
  const expiresAt = Math.floor(now / 1000) + ALERT_LINK_TTL_DAYS * 86_400;
  const body: z.infer<typeof mutePayloadSchema> = {
    p: MUTE_PURPOSE,
    a: link.alertId,
    u: link.userId,
    m: link.action,
    l: link.language,
    e: expiresAt,
  };
  return signToken(await alertLinkKey(), MUTE_PURPOSE, body);
}

/** The mute link a token carries, or why it carries none. */
export async function verifyAlertMuteLink(token: string, now: number): Promise<LinkCheck<AlertMuteLink>> {
  return checked(openToken(await alertLinkKey(), MUTE_PURPOSE, token, mutePayloadSchema), now, (parsed) => ({
    alertId: parsed.a,
    userId: parsed.u,
    action: parsed.m,
    language: parsed.l,
    expiresAt: parsed.e,
  }));
}
