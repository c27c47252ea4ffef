import * as z from 'zod';
import { strictBody } from './strict-body';

export const phoneVerificationResponseSchema = z
  .object({
    phoneNumber: z.string().describe('E.164: the number the code went to'),
    expiresAt: z.iso.datetime({ offset: true }).describe('the code works until then, for a few tries'),
  })
  .meta({ example: { phoneNumber: '+994501234567', expiresAt: '2026-11-29T10:10:00.000Z' } });

export const phoneConfirmBodySchema = strictBody({
  code: z
    .string()
    .regex(/^\d{6}$/, 'the six digits of the SMS')
    .describe('the six digits of the verification SMS'),
}).meta({ example: { code: '042917' } });

export const phoneConfirmResponseSchema = z
  .object({
    phoneNumber: z.string().describe('E.164'),
    phoneVerified: z.literal(true),
  })
  .meta({ example: { phoneNumber: '+994501234567', phoneVerified: true } });

export const smsSpendQuerySchema = strictBody({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'a calendar month, YYYY-MM')
    .optional()
    .describe('the calendar month (UTC) to answer for, YYYY-MM; default the current one'),
}).meta({ example: { month: '2026-10' } });

export const smsSpendResponseSchema = z
  .object({
    parentId: z.string().describe('the client'),
    month: z.string().describe('the calendar month (UTC), YYYY-MM'),
    spentUsd: z.number().describe("estimated SMS spend of the month, in US dollars: each SMS's segments × its destination's price"),
    capUsd: z.number().describe("the installation's monthly SMS spend cap per client"),
    capReached: z.boolean().describe("true once the month's spend reached the cap: SMS stop for the rest of that month (alerts record capReached)"),
  })
  .meta({ example: { parentId: '6f1c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f', month: '2026-11', spentUsd: 12.75, capUsd: 50, capReached: false } });
