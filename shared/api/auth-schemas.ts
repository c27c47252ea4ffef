import * as z from 'zod';
import { guidSchema } from '../schemas/notification';
import { strictBody } from './strict-body';

/** The login's request and answer, and the session check's answer. */
export const loginBodySchema = strictBody({
  login: z.string().trim().min(1).max(100),
  password: z.string().min(1).max(1_000),
});

export const loginResponseSchema = z.object({
  AuthId: z.string().describe('session token; send it as header X-Auth'),
  User: z.string().describe('the login'),
});

export const sessionCheckResponseSchema = z
  .object({
    expiresAt: z.iso.datetime().describe('when the session ends unless a request prolongs it'),
    userId: guidSchema.describe('id of the logged-in user'),
    parentId: guidSchema.describe('id of its client (the root of what it may see and change)'),
  })
  .meta({
    example: {
      expiresAt: '2026-03-01T08:30:00.000Z',
      userId: 'a3b2c1d0-e9f8-4a7b-8c6d-5e4f3a2b1c0d',
      parentId: '6f1c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f',
    },
  });
