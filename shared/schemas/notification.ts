import * as z from 'zod';

/** Event templates of the platform that fleetwatch evaluates. Type 10 (address) is not supported. */
export const RULE_TYPES = {
  geozone: 0,
  speeding: 2,
  drain: 4,
  fuelling: 5,
  panic: 6,
  connectionLoss: 7,
  discreteSensor: 8,
  analogSensor: 9,
  idle: 11,
  maintenance: 12,
} as const;

export type RuleTypeName = keyof typeof RULE_TYPES;
export type RuleType = (typeof RULE_TYPES)[RuleTypeName];

const supportedTypes = Object.values(RULE_TYPES) as number[];

export const ruleTypeSchema = z
  .number()
  .int()
  .refine((value) => supportedTypes.includes(value), {
    message: `type must be one of ${supportedTypes.join(', ')} (10, address, is not supported)`,
  })
  .transform((value) => value as RuleType);

export const guidSchema = z.uuid({ version: undefined });

/**
 * A rule's timezone, used only to render times in notifications:
 * an offset in hours from UTC as the platform's period queries use (3 = UTC+3), or an IANA zone name.
 */
export const timezoneSchema = z.union([
  z.number().min(-12).max(14).multipleOf(0.25),
  z.string().refine((zone) => isIanaZone(zone), { message: 'not an IANA time zone name' }),
]);

function isIanaZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const telegramTargetSchema = z.object({
  id: z.union([z.string().min(1).max(64), z.number().int()]).transform(String),
  info: z.string().max(200).default(''),
});

/**
 * The notification rule as `GET /api/v3/notifications/{id}` returns it and `PUT /api/v3/notifications` takes it.
 * Like every PUT of the platform, a field not sent is erased: optional fields default to their empty value.
 */
export const notificationBodySchema = z.object({
  type: ruleTypeSchema,
  userId: guidSchema.nullable().default(null),
  parentId: guidSchema,
  name: z.string().trim().min(1).max(200),
  active: z.boolean().default(false),
  vehicleIds: z.array(z.number().int().min(1).max(2_147_483_647)).max(10_000).default([]),
  geoids: z.array(z.number().int().min(1)).max(1_000).default([]),
  fieldids: z.array(z.number().int().min(1)).max(1_000).default([]),
  settings: z.record(z.string().max(64), z.string().max(2_000)).default({}),
  toEmail: z.boolean().default(false),
  recipientIds: z.array(guidSchema).max(100).default([]),
  enableSideEmails: z.boolean().default(false),
  sideEmails: z.array(z.email()).max(100).default([]),
  toTelegram: z.boolean().default(false),
  telegrams: z.array(telegramTargetSchema).max(100).default([]),
  toMobile: z.boolean().default(false),
  toClient: z.boolean().default(false),
  stored: z.boolean().default(false),
  kind: z.number().int().nullable().default(null),
  activationMode: z.union([z.literal(0), z.literal(1)]).default(0),
  activationTime: z.iso.datetime({ offset: true }).nullable().default(null),
  timezone: timezoneSchema.default(3),
  validity: z.number().int().min(1).max(90).default(90),
  autoProlongation: z.boolean().default(false),
});

export const notificationSchema = notificationBodySchema.extend({
  id: z.number().int().min(1),
  parentName: z.string().default(''),
});

export type NotificationBody = z.infer<typeof notificationBodySchema>;
export type Notification = z.infer<typeof notificationSchema>;

/**
 * A rule as stored: the API record plus bookkeeping the API does not show.
 * `expiresAt` ends its validity; `version` guards concurrent edits.
 */
export const storedRuleSchema = notificationSchema.extend({
  version: z.number().int().min(1),
  createdAt: z.iso.datetime({ offset: true }),
  updatedAt: z.iso.datetime({ offset: true }),
  /** When the validity period started (creation, activation time, or the last prolongation base). */
  validFrom: z.iso.datetime({ offset: true }),
  expiresAt: z.iso.datetime({ offset: true }),
});

export type StoredRule = z.infer<typeof storedRuleSchema>;
