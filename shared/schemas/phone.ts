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

export { countryOfNumber, isCountryAllowed } from './phone-country';
