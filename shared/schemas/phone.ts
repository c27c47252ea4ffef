import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import * as z from 'zod';

/**
 * A recipient's mobile number in E.164 (`+994501234567`), checked against the numbering plan of its country by
 * libphonenumber-js, so that a number with a wrong length or an unassigned prefix is refused at save rather than
 * paid for at delivery.
 */
export const phoneNumberSchema = z
  .string()
  .max(16)
  .refine((value) => /^\+[1-9]\d{6,14}$/.test(value) && (parsePhoneNumberFromString(value)?.isValid() ?? false), {
    error: 'must be a valid phone number in E.164 form, such as +994501234567',
  })
  .describe('E.164, such as +994501234567');

/**
 * Whether a number's country is on the deployment's SMS allow-list (an empty list allows none: SMS off), as the
 * API checks it at save. It answers as phone-country.ts does at delivery: libphonenumber-js's small metadata keeps
 * the full patterns of every country that shares a calling code, so both tell the same country. Reading it from the
 * large metadata this module loads anyway keeps the small one (~80 KB) out of the API bundle.
 */
export function isCountryAllowed(phoneNumber: string, countries: readonly string[]): boolean {
  const country = parsePhoneNumberFromString(phoneNumber)?.country;
  return country !== undefined && countries.includes(country);
}
