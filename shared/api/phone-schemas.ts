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
