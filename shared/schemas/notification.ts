import * as z from 'zod';

/** Event templates of the platform that fleetwatch evaluates (0–12, all of them), then fleetwatch's own from 13. */
export const RULE_TYPES = {
  geozone: 0,
  speeding: 2,
  drain: 4,
  fuelling: 5,
  panic: 6,
  connectionLoss: 7,
  discreteSensor: 8,
  analogSensor: 9,
  address: 10,
  idle: 11,
  maintenance: 12,
  parking: 13,
  movement: 14,
  continuousDriving: 15,
  deviceAlarm: 16,
} as const;

export type RuleTypeName = keyof typeof RULE_TYPES;
export type RuleType = (typeof RULE_TYPES)[RuleTypeName];

const supportedTypes = Object.values(RULE_TYPES) as number[];

export const ruleTypeSchema = z
  .number()
  .int()
  .refine((value) => supportedTypes.includes(value), {
    message: `type must be one of ${supportedTypes.join(', ')}`,
  })
  // the refinement is invisible to the OpenAPI document: it lists the types itself
  .meta({ enum: supportedTypes })
  .transform((value) => value as RuleType);

export const guidSchema = z.uuid({ version: undefined });

/**
 * A rule's timezone, used to render times in notifications and to read `settings.schedule`:
 * an offset in hours from UTC as the platform's period queries use (3 = UTC+3), or an IANA zone name.
 */
export const timezoneSchema = z.union([
  // the OpenAPI generator leaves multipleOf out: the document is told it here
  z.number().min(-12).max(14).multipleOf(0.25).meta({ multipleOf: 0.25 }),
  z.string().refine((zone) => isIanaZone(zone), { message: 'not an IANA time zone name' }),
]);

/** An IANA time zone name (`Europe/Berlin`), as the runtime's Intl knows it. */
export const ianaZoneSchema = z
  .string()
  .max(100)
  .refine((zone) => isIanaZone(zone), { message: 'not an IANA time zone name' });

function isIanaZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A Telegram chat: its id is kept as sent, a JSON number stays a number and a string stays a string. */
export const telegramTargetSchema = z.object({
  id: z
    .union([z.string().min(1).max(64), z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER)])
    .describe('chat id (number or string, answered in the same JSON type); no default'),
  info: z.string().max(200).default('').describe("free text about the chat; default ''"),
  threadId: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("a forum topic of the group (Telegram's message_thread_id): the chat's alerts go to that thread; default: the chat's main thread"),
});

/** An ISO 8601 time with any offset, kept in UTC (`2026-03-01T05:00:00.000Z` for `2026-03-01T08:00:00+03:00`). */
export const utcTimeSchema = z.iso.datetime({ offset: true }).transform((time) => new Date(time).toISOString());

/**
 * The latest activation time: a validity of up to 90 days from it still ends in year 9999, the last year an ISO
 * 8601 time of four digits (and so the stored `expiresAt`) can name.
 */
export const LATEST_ACTIVATION_TIME = '9999-10-01T00:00:00.000Z';

/**
 * One value of a rule's `settings`: the platform's string, or a JSON number or boolean written the way it would
 * be as a string (`80`, `80.5`, `true`), so a rule reads the same whichever way it was sent; or a JSON array (an
 * escalation chain), kept as its canonical JSON text. JSON carries no NaN or Infinity; objects and null are refused.
 */
export const settingValueSchema = z
  .union([z.string().max(4_000), z.number(), z.boolean(), z.array(z.unknown()).max(10)], {
    error: 'must be a string, a number, a boolean or (escalation) an array',
  })
  .transform((value) => (typeof value === 'string' ? value : Array.isArray(value) ? JSON.stringify(value) : String(value)));

/**
 * The notification rule as `GET /api/v3/notifications/{id}` returns it and `PUT /api/v3/notifications` takes it.
 * Like every PUT of the platform, a field not sent is erased: optional fields default to their empty value.
 */
export const notificationBodySchema = z.object({
  type: ruleTypeSchema.describe(
    'event template, required: 0 geozone entry/exit, 2 speeding, 4 drain, 5 fuelling, 6 panic button, 7 connection loss, ' +
      '8 discrete sensor, 9 analog sensor, 10 address, 11 idle, 12 maintenance, 13 parking, 14 movement, 15 continuous driving, 16 device alarm',
  ),
  userId: guidSchema.nullable().default(null).describe('owning user; default null, which makes the caller the owner'),
  parentId: guidSchema.describe('client the rule belongs to, required; yours or one below yours'),
  name: z.string().trim().min(1).max(200).describe('required'),
  active: z.boolean().default(true).describe('whether the rule raises alerts; default true'),
  vehicleIds: z
    .array(z.number().int().min(1).max(2_147_483_647))
    .max(10_000)
    .default([])
    .describe('vehicles the rule watches, registered to your clients; default []'),
  geoids: z
    .array(z.number().int().min(1))
    .max(1_000)
    .default([])
    .describe('geozones of the rule (type 0, and zones named in zoneLimits of type 2); default []'),
  fieldids: z.array(z.number().int().min(1)).max(1_000).default([]).describe('field ids of the platform, kept as sent; default []'),
  settings: z
    .record(z.string().max(64), settingValueSchema)
    .default({})
    .describe(
      'settings of the rule type, as a map; default {} (every key at its default). A value is a string, a JSON number or a JSON ' +
        'boolean: numbers and booleans are stored and answered as their canonical strings (80 as "80", 80.5 as "80.5", true as "true"). ' +
        'In strings, numbers are decimal, booleans true/false, 1/0, yes/no or on/off, words are case-insensitive. An unknown key, an ' +
        'object, array or null value, a malformed value or a broken constraint is answered 400 naming the key (settings.<key>).',
    ),
  toEmail: z
    .boolean()
    .default(false)
    .describe('e-mail the users in recipientIds; when true, recipientIds must name an enabled user (else 400 on toEmail); default false'),
  recipientIds: z.array(guidSchema).max(100).default([]).describe('users (of your clients) who receive alerts; default []'),
  enableSideEmails: z
    .boolean()
    .default(false)
    .describe('e-mail the addresses in sideEmails; when true, sideEmails must not be empty (else 400 on enableSideEmails); default false'),
  sideEmails: z.array(z.email()).max(100).default([]).describe('outside e-mail addresses; default []'),
  toTelegram: z
    .boolean()
    .default(false)
    .describe(
      "send to Telegram: the chats in telegrams and the recipients' linked chats; when true, one of them must exist (else 400 on toTelegram); default false",
    ),
  telegrams: z.array(telegramTargetSchema).max(100).default([]).describe('Telegram chats [{id, info, threadId?}]; default []'),
  telegramLocation: z
    .boolean()
    .default(false)
    .describe("after each Telegram alert, send the event's position as a Telegram location, as a reply to it; default false"),
  toMobile: z
    .boolean()
    .default(false)
    .describe("push to the recipients' registered phones; when true, a recipient must have one (else 400 on toMobile); default false"),
  toSms: z
    .boolean()
    .default(false)
    .describe(
      "send an SMS to the recipients' verified phone numbers, for alerts of at least settings.smsMinSeverity (default critical): one segment with the vehicle, the event and a short link to the alert's page (left out when it cannot fit); when true, recipientIds must name an enabled user (else 400 on toSms); default false",
    ),
  toClient: z.boolean().default(false).describe("show in the web interface and post to the client's webhook endpoints; default false"),
  stored: z.boolean().default(false).describe('keep alerts in the history (notifications/history); default false'),
  kind: z.number().int().nullable().default(null).describe('kept as sent; default null'),
  activationMode: z
    .union([z.literal(0), z.literal(1)])
    .default(0)
    .describe('0 activates now, 1 at activationTime; default 0'),
  activationTime: utcTimeSchema
    .refine((time) => Date.parse(time) < Date.parse(LATEST_ACTIVATION_TIME), { message: `activationTime must be before ${LATEST_ACTIVATION_TIME}` })
    .nullable()
    .default(null)
    .describe(
      `when activationMode is 1 (required then): ISO 8601 with any offset, stored and answered in UTC, before ${LATEST_ACTIVATION_TIME}; default null`,
    ),
  timezone: timezoneSchema
    .default(3)
    .describe(
      'hours from UTC (3 = UTC+3, fixed) or an IANA name (daylight saving followed), used to write times in messages and to read settings.schedule; an unknown name is answered 400; default 3',
    ),
  validity: z.number().int().min(1).max(90).default(90).describe('days the rule stays in force from its activation (or creation); default 90'),
  autoProlongation: z.boolean().default(false).describe('on expiry, start a new validity period instead of deactivating; default false'),
});

export const notificationSchema = notificationBodySchema.extend({
  id: z.number().int().min(1).describe('the rule; required to replace it'),
  parentName: z.string().default('').describe("read-only: the client's name, answered by the API whatever is sent; default ''"),
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
