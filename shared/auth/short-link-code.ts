import { randomInt } from 'node:crypto';
import * as z from 'zod';

/**
 * The code of an alert SMS's short link (`/alerts/s/{code}`): 10 characters of base62 drawn with the CSPRNG,
 * 62^10 ≈ 8.4 × 10^17 codes, about 59.5 bits. With a million codes alive at once (they live 7 days), one
 * guess hits one with a chance of about 10^-12, so even a billion requests (billed and throttled by API Gateway
 * long before) find one with a chance of about 1 in 1,000; the code grants no more than the alert page's own
 * signed link, which it leads to.
 */
export const SHORT_LINK_CODE_LENGTH = 10;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const shortLinkCodeSchema = z
  .string()
  .regex(new RegExp(`^[0-9A-Za-z]{${SHORT_LINK_CODE_LENGTH}}$`), `not a short link code (${SHORT_LINK_CODE_LENGTH} letters and digits)`);

export type ShortLinkCode = z.infer<typeof shortLinkCodeSchema>;

/** A new random code; randomInt draws without modulo bias. */
export function newShortLinkCode(): ShortLinkCode {
  return Array.from({ length: SHORT_LINK_CODE_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
}
