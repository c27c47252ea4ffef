import * as z from 'zod';
import { guidSchema } from '../schemas/notification';
import { languageSchema } from '../schemas/directory';
import { phoneNumberSchema } from '../schemas/phone';
import { strictBody } from './strict-body';
import { EXAMPLE_CHILD_ID, EXAMPLE_CLIENT_ID, EXAMPLE_USER_ID } from './example-ids';

/**
 * Bodies and answers of the directory endpoints (clients, users, vehicles), with the platform's field names,
 * limited to the fields fleetwatch stores. Request bodies are strict: an unknown field is a 400 naming it.
 * Read-only fields the API answers (`parentName`) are accepted and ignored, so a record read, edited and sent
 * back is accepted.
 */

const vehicleIdSchema = z.number().int().min(1).max(2_147_483_647);
const readOnlyParentName = z.string().max(500).nullable().optional().describe('read-only: accepted and ignored');

/** Paging of a find, in the platform's find style (a plain list answers): `offset` records skipped, at most `limit` answered. */
export const MAX_FIND_LIMIT = 1_000;
const paging = {
  offset: z.number().int().min(0).default(0).describe('records to skip, in the answer order; default 0'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_FIND_LIMIT)
    .default(MAX_FIND_LIMIT)
    .describe(`most records answered; default and maximum ${MAX_FIND_LIMIT}. A full page means there may be more: read on with offset`),
};
export type Paging = { offset: number; limit: number };

// ---- clients (agents)

export const agentFindBodySchema = strictBody({
  parentId: guidSchema
    .nullable()
    .optional()
    .describe('the client whose own record and clients below it are listed; default (or null) your own client'),
  ...paging,
}).meta({ example: { parentId: null } });

export const agentSummarySchema = z.object({
  agentId: guidSchema,
  parentId: guidSchema.nullable(),
  name: z.string(),
  fullName: z.string(),
  agentInfoType: z.number().int().describe('0 Client, 1 Partner, 2 Group, 3 Administrative group, 4 Test client, 5 Contract'),
  status: z.number().int().describe('0 blocked, 1 active'),
});

export const agentFindResponseSchema = z.array(agentSummarySchema).meta({
  example: [
    { agentId: EXAMPLE_CLIENT_ID, parentId: null, name: 'Acme Logistics', fullName: 'Acme Logistics Ltd', agentInfoType: 0, status: 1 },
    { agentId: EXAMPLE_CHILD_ID, parentId: EXAMPLE_CLIENT_ID, name: 'Acme North depot', fullName: '', agentInfoType: 0, status: 1 },
  ],
});

export const agentRecordSchema = agentSummarySchema
  .extend({ parentName: z.string().nullable().describe('name of the parent client; null for a client without one') })
  .meta({
    example: {
      agentId: EXAMPLE_CHILD_ID,
      parentId: EXAMPLE_CLIENT_ID,
      parentName: 'Acme Logistics',
      name: 'Acme North depot',
      fullName: '',
      agentInfoType: 0,
      status: 1,
    },
  });

export const agentParamsSchema = z.object({ id: guidSchema });

// ---- users

export const userFindBodySchema = strictBody({
  parentId: guidSchema
    .nullable()
    .optional()
    .describe('the client whose users (and those of the clients below it) are listed; default (or null) your own client'),
  userId: guidSchema.nullable().optional().describe('exact user id; null ignores the filter'),
  login: z.string().max(100).nullable().optional().describe('exact login, in any letter case; null ignores the filter'),
  email: z.string().max(320).nullable().optional().describe('exact e-mail address, in any letter case; null ignores the filter'),
  ...paging,
}).meta({ example: { parentId: null, userId: null, login: 'dispatcher', email: null } });

export const userSummarySchema = z.object({
  id: guidSchema,
  login: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  parentId: guidSchema,
  parentName: z.string(),
  sessionDuration: z.number().int().nullable().describe('minutes; null means the default of 30'),
});

const exampleUser = {
  id: EXAMPLE_USER_ID,
  login: 'dispatcher',
  email: 'dispatch@acme.example.com',
  firstName: 'Dana',
  lastName: 'Reyes',
  parentId: EXAMPLE_CLIENT_ID,
  parentName: 'Acme Logistics',
  sessionDuration: null,
};

export const userFindResponseSchema = z.array(userSummarySchema).meta({ example: [exampleUser] });

export const userRecordSchema = userSummarySchema
  .extend({
    language: languageSchema.describe('1 Russian, 2 English, 3 Azerbaijani'),
    isReadOnly: z.boolean(),
    isEnabled: z.boolean(),
    phoneNumber: z.string().nullable().describe('E.164; null when none'),
    phoneVerified: z
      .boolean()
      .describe(
        'true once the owner confirmed the number with the code sent to it (POST /api/v3/users/{id}/phone/verification); only then do alerts go to it by SMS',
      ),
  })
  .meta({ example: { ...exampleUser, language: 2, isReadOnly: false, isEnabled: true, phoneNumber: '+994501234567', phoneVerified: true } });

export const userParamsSchema = z.object({ id: guidSchema });

const userFields = {
  email: z.email().max(320),
  firstName: z.string().max(200).default('').describe("default ''"),
  lastName: z.string().max(200).default('').describe("default ''"),
  language: languageSchema.default(2).describe('1 Russian, 2 English, 3 Azerbaijani; default 2'),
  isReadOnly: z.boolean().default(false).describe('default false'),
  isEnabled: z.boolean().default(true).describe('default true; a disabled user cannot log in, and its sessions end'),
  sessionDuration: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .nullable()
    .default(null)
    .describe('minutes; default (or null) 30'),
  phoneNumber: phoneNumberSchema
    .nullable()
    .default(null)
    .describe(
      'mobile number for SMS alerts, E.164 (such as +994501234567); its country must be one the installation sends SMS to (else 400 on phoneNumber). A new number gets alerts only once verified; default (or null) none',
    ),
  parentName: readOnlyParentName,
};
const loginSchema = z.string().trim().min(1).max(100);
const passwordSchema = z.string().min(8, 'use at least 8 characters').max(1_000);

export const userCreateBodySchema = strictBody({
  login: loginSchema,
  password: passwordSchema,
  parentId: guidSchema.nullable().optional().describe('the client of the user; default (or null) your own client'),
  ...userFields,
}).meta({
  example: {
    login: 'dispatcher',
    password: 'correct horse battery staple',
    email: 'dispatch@acme.example.com',
    firstName: 'Dana',
    lastName: 'Reyes',
    parentId: EXAMPLE_CLIENT_ID,
  },
});

export const userReplaceBodySchema = strictBody({
  id: guidSchema,
  login: loginSchema.nullable().optional().describe('default (or null): unchanged'),
  password: passwordSchema.nullable().optional().describe('default (or null): unchanged'),
  parentId: guidSchema.describe('the client of the user; moving a user needs both clients in your scope'),
  ...userFields,
  email: userFields.email.nullable().optional().describe('default (or null): unchanged'),
  phoneVerified: z.boolean().nullable().optional().describe('read-only: accepted and ignored (a new phoneNumber needs a new verification)'),
}).meta({
  example: {
    id: EXAMPLE_USER_ID,
    login: null,
    password: null,
    email: null,
    firstName: 'Dana',
    lastName: 'Reyes-Ortiz',
    parentId: EXAMPLE_CLIENT_ID,
    parentName: 'Acme Logistics',
    language: 2,
    isReadOnly: false,
    isEnabled: true,
    sessionDuration: 60,
    phoneNumber: '+994501234567',
  },
});

export type UserCreateBody = z.infer<typeof userCreateBodySchema>;
export type UserReplaceBody = z.infer<typeof userReplaceBodySchema>;

// ---- vehicles

const notStored = (field: string) =>
  z
    .null({ error: `fleetwatch stores no ${field}: send null (ignore the filter) or leave it out` })
    .optional()
    .describe(`fleetwatch stores no ${field}: only null (ignore the filter) is accepted`);

export const vehicleFindBodySchema = strictBody({
  vehicleId: vehicleIdSchema.nullable().optional().describe('exact vehicle id; null ignores the filter'),
  name: z.string().max(200).nullable().optional().describe('part of the name, in any letter case; null ignores the filter'),
  parentId: guidSchema.nullable().optional().describe('exact owning client; null lists the vehicles of your client and the clients below it'),
  imei: notStored('imei'),
  sim: notStored('SIM numbers'),
  deviceTypeId: notStored('device types'),
  unitId: notStored('subdivisions'),
  customFields: notStored('custom fields'),
  ...paging,
}).meta({ example: { vehicleId: null, name: 'truck', parentId: null } });

export const vehicleRecordSchema = z
  .object({ vehicleId: z.number().int(), name: z.string(), parentId: guidSchema, parentName: z.string() })
  .meta({ example: { vehicleId: 40117, name: 'Truck 17', parentId: EXAMPLE_CLIENT_ID, parentName: 'Acme Logistics' } });

export const vehicleFindResponseSchema = z.array(vehicleRecordSchema).meta({
  example: [{ vehicleId: 40117, name: 'Truck 17', parentId: EXAMPLE_CLIENT_ID, parentName: 'Acme Logistics' }],
});

const vehicleWriteFields = {
  vehicleId: vehicleIdSchema.describe("the platform's vehicle id"),
  name: z.string().trim().min(1).max(200),
  parentName: readOnlyParentName,
  allowMove: z
    .boolean()
    .default(false)
    .describe('default false: a vehicle registered to another client of your scope is moved only with true (409 otherwise)'),
};

export const vehicleCreateBodySchema = strictBody({
  ...vehicleWriteFields,
  parentId: guidSchema.nullable().optional().describe('the owning client; default (or null) your own client'),
}).meta({ example: { vehicleId: 40117, name: 'Truck 17', parentId: EXAMPLE_CLIENT_ID } });

export const vehicleReplaceBodySchema = strictBody({
  ...vehicleWriteFields,
  parentId: guidSchema.describe('the owning client; a different one than stored moves the vehicle (needs allowMove)'),
}).meta({ example: { vehicleId: 40117, name: 'Truck 17', parentId: EXAMPLE_CLIENT_ID, parentName: 'Acme North depot', allowMove: true } });

export const vehicleWriteResponseSchema = vehicleRecordSchema
  .extend({
    rulesNoLongerApplying: z
      .array(z.object({ id: z.number().int(), name: z.string(), parentId: guidSchema }))
      .optional()
      .describe('present after a move: the rules of your clients that watched the vehicle and stop applying to it'),
  })
  .meta({
    example: {
      vehicleId: 40117,
      name: 'Truck 17',
      parentId: EXAMPLE_CLIENT_ID,
      parentName: 'Acme Logistics',
      rulesNoLongerApplying: [{ id: 12, name: 'Depot speeding', parentId: EXAMPLE_CHILD_ID }],
    },
  });

export type VehicleCreateBody = z.infer<typeof vehicleCreateBodySchema>;
export type VehicleReplaceBody = z.infer<typeof vehicleReplaceBodySchema>;
