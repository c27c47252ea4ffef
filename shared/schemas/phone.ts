import { parsePhoneNumberFromString } from 'libphonenumber-js/mobile';
import * as z from 'zod';

/**
 * A recipient's mobile number in E.164 (`+994501234567`), checked against the mobile numbering plan of its country
 * by libphonenumber-js (its mobile metadata, 99 KB where the full set is 157 KB), so that a number with a wrong
 * length, an unassigned prefix or a fixed line, which no SMS reaches, is refused at save rather than paid for at
 * delivery. Where a country does not tell its mobile and fixed numbers apart (the NANP), either is taken.
 */
export const phoneNumberSchema = z
  .string()
  .max(16)
  .refine((value) => /^\+[1-9]\d{6,14}$/.test(value) && (parsePhoneNumberFromString(value)?.isValid() ?? false), {
    error: 'must be a valid mobile number in E.164 form, such as +994501234567',
  })
  .describe('a mobile number in E.164, such as +994501234567');

/**
 * Whether a number's country is on the deployment's SMS allow-list (an empty list allows none: SMS off), as the
 * API checks it at save. For a valid mobile number it answers as phone-country.ts does at delivery (test/schemas/
 * phone.test.ts compares the two on every country's example numbers): reading it from the metadata this module
 * loads anyway keeps the small set (~80 KB) out of the API bundle.
 */
export function isCountryAllowed(phoneNumber: string, countries: readonly string[]): boolean {
  const country = parsePhoneNumberFromString(phoneNumber)?.country;
  return country !== undefined && countries.includes(country);
}
