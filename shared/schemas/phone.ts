import * as z from 'zod';
import { parsePhoneNumber } from './phone-plan';

/**
 * A recipient's mobile number in E.164 (`+994501234567`), checked against the mobile numbering plan of its country
 * (phone-plan.ts), so that a number with a wrong length, an unassigned prefix or a fixed line, which no SMS reaches,
 * is refused at save rather than paid for at delivery. Where a country does not tell its mobile and fixed numbers
 * apart (the NANP), either is taken.
 */
export const phoneNumberSchema = z
  .string()
  .max(16)
  .refine((value) => /^\+[1-9]\d{6,14}$/.test(value) && (parsePhoneNumber(value)?.isValid() ?? false), {
    error: 'must be a valid mobile number in E.164 form, such as +994501234567',
  })
  .describe('a mobile number in E.164, such as +994501234567');
