import * as z from 'zod';

/** Body of a message on the deliveries queue: a test alert of a rule to send now, through the rule's channels. */
export const testSendRequestSchema = z.object({
  testSend: z.object({ testId: z.uuid(), ruleId: z.number().int().positive() }).strict(),
});
export type TestSendRequest = z.infer<typeof testSendRequestSchema>;

/**
 * What came of a test alert at one target:
 * - sent: it went out;
 * - notLinked: a Telegram chat of the rule that no user of the rule owner's scope linked (or that sent /stop,
 *   or blocked the bot);
 * - notConfirmed: a side address that has not confirmed yet (it gets neither the test nor a confirmation link);
 * - unsubscribed, suppressed: an address that must get nothing;
 * - failed: anything else that kept it from going out, with the reason.
 */
export const TEST_OUTCOMES = ['sent', 'notLinked', 'notConfirmed', 'unsubscribed', 'suppressed', 'failed'] as const;

export const testTargetOutcomeSchema = z.object({
  channel: z.enum(['email', 'telegram', 'push', 'webhook', 'sms']),
  /** The target as the alert's `deliveries` map names it (`email:<address>`, `telegram:<chat id>`, …). */
  target: z.string(),
  outcome: z.enum(TEST_OUTCOMES),
  reason: z.string().optional(),
});
export type TestTargetOutcome = z.infer<typeof testTargetOutcomeSchema>;

/** A test alert's result, as the deliver function records it for the API to read. */
export const testSendResultSchema = z.object({
  testId: z.uuid(),
  ruleId: z.number().int(),
  finishedAt: z.string(),
  targets: z.array(testTargetOutcomeSchema),
});
export type TestSendResult = z.infer<typeof testSendResultSchema>;
