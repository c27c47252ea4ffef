import * as z from 'zod';
import { ruleEventSchema } from './rule-event';
import { severitySchema } from './severity';

// evaluate raises events and never reads an alert back: it imports rule-event.ts and severity.ts, not this module's schemas
export { eventValuesSchema, ruleEventSchema, type RuleEvent } from './rule-event';

/**
 * Why a target of a recipient user did not go out at once, by the user's own preferences (shared/schemas/preferences.ts):
 * - `quietHours`: inside the user's quiet hours; an e-mail or Telegram message waits for the digest sent when
 *   they end (`digest`, then `sent`), a push notification is skipped;
 * - `minSeverity`: the alert is below the least severity the user takes on that channel (`skipped`).
 * These are decided per target at delivery, after the alert was raised, so they are not among the reasons an
 * evaluation raised no alert (SUPPRESSION_REASONS, shared/pipeline/event-admission.ts).
 */
export const PREFERENCE_REASONS = ['quietHours', 'minSeverity'] as const;
export const preferenceReasonSchema = z.enum(PREFERENCE_REASONS);
export type PreferenceReason = z.infer<typeof preferenceReasonSchema>;

/**
 * Why an SMS target ended as it did, beyond sent or failed:
 * - `optedOut`: the number replied STOP (the service refused the send); no SMS goes to it for the client again;
 * - `capReached`: the client's monthly SMS spend cap was reached, so it was not sent;
 * - `countryNotAllowed`: the number's country is not on the deployment's allow-list (any more);
 * - `delivered`, `carrierFailed`, `expired`: the outcome the service reported later (its TimeToLive passed
 *   unsent for `expired`), with the carrier's reason in `carrierReason`.
 */
export const SMS_OUTCOMES = ['optedOut', 'capReached', 'countryNotAllowed', 'delivered', 'carrierFailed', 'expired'] as const;
export const smsDeliverySchema = z.object({
  segments: z.number().int().min(1).describe('segments the text took (what carriers bill)'),
  messageId: z.string().optional(),
  outcome: z.enum(SMS_OUTCOMES).optional(),
  carrierReason: z.string().max(500).optional(),
});
export type SmsDelivery = z.infer<typeof smsDeliverySchema>;

/**
 * One target's state on an alert. `held`: an e-mail to a side address that has not confirmed yet waits for it
 * (`error` says until when); it becomes `sent` once the address confirms, or `skipped` after 24 hours.
 * `digest`: the account's SES daily quota was nearly used, so the e-mail waits for its recipient's digest; it
 * becomes `sent` (or `failed`) when the digest goes out.
 */
export const deliveryStatusSchema = z.object({
  status: z
    .enum(['sent', 'failed', 'skipped', 'held', 'digest'])
    .describe(
      "held: an e-mail waiting for its side address to confirm (up to 24 hours after the alert; `error` says until when). digest: an e-mail waiting for its recipient's digest, because the daily e-mail quota is nearly used; it becomes `sent` when the digest goes out.",
    ),
  at: z.iso.datetime({ offset: true }),
  attempts: z.number().int().min(0),
  error: z.string().optional(),
  reason: preferenceReasonSchema
    .optional()
    .describe(
      "the recipient's preferences held or skipped it: quietHours (inside the user's quiet hours: an e-mail or Telegram message waits for the digest sent when they end, a push notification is skipped), minSeverity (below the least severity the user takes on that channel)",
    ),
  sms: smsDeliverySchema.optional().describe('an SMS target only: its segments, and what became of it'),
});

export type DeliveryStatus = z.infer<typeof deliveryStatusSchema>;

/**
 * A target still open after a passing problem: how many attempts it has had, the last one's error in words,
 * when it was made and when the next is due. One record per target, overwritten on each attempt. `heldBy`: the
 * destination whose open circuit holds the target (shared/delivery/circuit-gate.ts); such a target is looked at
 * whenever its alert is, and drained once the circuit closes, whatever `nextAttemptAt` says.
 */
export const deliveryRetrySchema = z.object({
  attempts: z.number().int().min(0),
  error: z.string(),
  at: z.string(),
  nextAttemptAt: z.string().optional(),
  heldBy: z
    .string()
    .optional()
    .describe(
      'while the circuit breaker of its destination is open: that destination (webhook#<endpoint id>, telegram, ses#<region> or sns#<region>); ' +
        'the target waits without spending attempts and is sent once the circuit closes',
    ),
});

export type DeliveryRetry = z.infer<typeof deliveryRetrySchema>;

/**
 * Where a stored alert stands: `open` when raised, `acknowledged` once someone took it on, then `cleared` (its
 * episode ended) or `closed` (by a person, or after the rule's `autoCloseHours`). Cleared and closed are final.
 * Alerts stored before states existed carry none and read as `open`.
 */
export const ALERT_STATES = ['open', 'acknowledged', 'cleared', 'closed'] as const;
export const alertStateSchema = z.enum(ALERT_STATES);
export type AlertState = z.infer<typeof alertStateSchema>;

export { atLeast, SEVERITIES, severitySchema, type Severity } from './severity';

/** The states an alert may move to from each state; a move to the state it is in is answered as already done. */
export const ALERT_TRANSITIONS: Record<AlertState, readonly AlertState[]> = {
  open: ['acknowledged', 'cleared', 'closed'],
  acknowledged: ['cleared', 'closed'],
  cleared: [],
  closed: [],
};

/** The states from which an alert may move to `to`. */
export const statesLeadingTo = (to: AlertState): AlertState[] => ALERT_STATES.filter((from) => ALERT_TRANSITIONS[from].includes(to));

/** Through which way a lifecycle change came. */
export const LIFECYCLE_CHANNELS = ['api', 'telegram', 'email', 'push', 'sms', 'system'] as const;

/** One change of an alert's state: to which state, when, by whom (a login, an e-mail address, or fleetwatch) and how. */
export const lifecycleEntrySchema = z.object({
  state: alertStateSchema,
  at: z.iso.datetime({ offset: true }),
  by: z.string().min(1).max(320).describe('who: the login of a user, the e-mail address of a link, or `fleetwatch` for automatic changes'),
  via: z.enum(LIFECYCLE_CHANNELS),
  comment: z.string().max(500).optional(),
});

export type LifecycleEntry = z.infer<typeof lifecycleEntrySchema>;

/**
 * An alert: one event of one rule for one vehicle. Its id is derived from (rule, vehicle, kind, time),
 * so a redelivered message can only ever write the same alert again.
 */
export const alertSchema = z.object({
  alertId: z.string().min(1),
  ruleId: z.number().int(),
  ruleType: z.number().int(),
  ruleName: z.string(),
  vehicleId: z.number().int(),
  parentId: z.string(),
  event: ruleEventSchema,
  createdAt: z.iso.datetime({ offset: true }),
  /** pending until the deliver function has dealt with every channel. */
  status: z.enum(['pending', 'delivered', 'failed']),
  /** Per channel and recipient, e.g. `email:ops@example.com`, `telegram:12345`. */
  deliveries: z.record(z.string(), deliveryStatusSchema).default({}),
  /** Targets not settled yet after a passing problem, by the same keys as `deliveries`. */
  deliveryRetries: z
    .record(z.string(), deliveryRetrySchema)
    .optional()
    .describe('targets still open after a passing problem: attempts so far, the last error in words, when, and the next attempt (ISO time)'),
  /**
   * When the alert's next delivery attempt is due, while its targets wait longer than the deliveries queue holds a
   * message: the sweep's due pass hands it back to delivery then (see shared/store/alert-due.ts).
   */
  retryAt: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("when the alert's next delivery attempt is due, while a target waits for a retry more than 15 minutes away"),
  /** Why delivery stopped: set when the alert failed. */
  deliveryError: z.string().optional().describe('why delivery stopped: the alert failed'),
  /** Set by versions that parked an alert after its 5th attempt, with its request on the deliveries DLQ; none is parked now. */
  parkedAt: z.string().optional().describe('when an earlier version parked the alert on the deliveries DLQ; a redrive sends its open targets'),
  stored: z.boolean(),
  /** Absent on an alert raised before severities: it reads as its type's default (shared/rules/severity.ts). */
  severity: severitySchema
    .optional()
    .describe("info, warning or critical, decided when the alert was raised from its rule's settings.severity or the type's default"),
  state: alertStateSchema.default('open').describe('open, acknowledged, cleared (its episode ended) or closed (by a person, or automatically)'),
  /** The acknowledgement, once there is one: who, when, through which channel, with an optional comment. */
  acknowledgement: lifecycleEntrySchema.optional().describe('who acknowledged the alert, when, through which channel, and their comment'),
  /** Every change of state, oldest first: at most one per transition, so never more than two. */
  lifecycle: z.array(lifecycleEntrySchema).max(ALERT_STATES.length).default([]).describe('each change of state, oldest first'),
  /** When the alert closes by itself (its rule's `autoCloseHours`), unless acknowledged-and-closed or cleared before. */
  autoCloseAt: z.iso.datetime({ offset: true }).optional().describe("when the alert closes by itself (the rule's autoCloseHours)"),
  /** When the alert goes to the escalation targets if still open (its rule's `escalateAfter`). */
  escalateAt: z.iso.datetime({ offset: true }).optional().describe("when the alert is escalated if still open (the rule's escalateAfter)"),
  /** When it was escalated: it was still open at `escalateAt`, and went to the escalation targets. */
  escalatedAt: z.iso.datetime({ offset: true }).optional().describe('when the alert was last escalated (still open at escalateAt)'),
  /** The step of the rule's escalation chain due at `escalateAt` (absent: its first level). */
  escalationStep: z
    .object({ level: z.number().int().min(0), round: z.number().int().min(0) })
    .optional()
    .describe('the level (from 0) and round (from 0) of the escalation chain due at escalateAt'),
  escalations: z
    .array(
      z.object({
        level: z.number().int().min(0),
        round: z.number().int().min(0),
        at: z.iso.datetime({ offset: true }),
        escalationId: z.string(),
        onCall: z.array(z.object({ rotaId: z.string(), userId: z.string() })).default([]),
      }),
    )
    .max(24)
    .optional()
    .describe('each level of the escalation chain that fired: when, and who of each rota was on call then'),
  /** A maintenance silence held the event back: kept in the history only, never delivered. */
  silenced: z
    .object({ silenceId: z.string().describe('the silence (`GET /api/v3/silences/{id}`) that held the event back') })
    .optional()
    .describe('set when a maintenance silence held the event back: the alert is kept in the history (closed by fleetwatch) and was never delivered'),
  /** Raised when a maintenance silence ended while the episode it held back still lasted (a lost connection, a vehicle still outside). */
  afterSilence: z
    .literal(true)
    .optional()
    .describe(
      'true: the episode (a lost connection, a vehicle still outside its zone, …) began while a maintenance silence held it back, and still lasted when the silence ended; raised once then',
    ),
});

export type Alert = z.infer<typeof alertSchema>;

/**
 * Body of a message on the deliveries queue: an alert to deliver. With `target`, the deliveries DLQ's record of
 * one target given up on, redriven: that target is opened again and sent (`reason`, also in the record, is left
 * out here).
 */
export const deliveryRequestSchema = z.object({ alertId: z.string().min(1), target: z.string().min(1).optional() });
export type DeliveryRequest = z.infer<typeof deliveryRequestSchema>;

/** Body of a message on the deliveries queue: a side address's confirmation link to send (a rule was saved). */
export const confirmationRequestSchema = z.object({
  confirmEmail: z.object({ clientId: z.string().min(1).max(100), address: z.email().max(320) }).strict(),
});
export type ConfirmationRequest = z.infer<typeof confirmationRequestSchema>;

/** Body of a message on the deliveries queue: a recipient's digest of held alert e-mails is due (from the sweep). */
export const digestRequestSchema = z.object({
  emailDigest: z.object({ clientId: z.string().min(1).max(100), address: z.email().max(320) }).strict(),
});
export type DigestRequest = z.infer<typeof digestRequestSchema>;

/**
 * Body of a message on the deliveries queue: a user's quiet hours ended (`until`), and the digest of what was
 * held for one of its targets (`email:<address>`, `telegram:<chat id>`) is due (from the sweep).
 */
export const quietHoursDigestRequestSchema = z.object({
  quietHoursDigest: z
    .object({ userId: z.string().min(1).max(100), targetKey: z.string().min(1).max(400), until: z.iso.datetime({ offset: true }) })
    .strict(),
});
export type QuietHoursDigestRequest = z.infer<typeof quietHoursDigestRequestSchema>;
