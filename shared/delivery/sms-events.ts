import type { SNSEvent } from 'aws-lambda';
import * as z from 'zod';
import { logger } from '../observability/logger';
import { snsJsonMessages } from '../channels/sns-messages';
import type { SmsDelivery } from '../schemas/alert';
import { targetKeys } from './targets';
import { recordSmsOutcome } from '../store/alerts/sms-outcome';

/**
 * The delivery events of AWS End User Messaging SMS (the configuration set's event destination, through SNS, to
 * the deliver function as SES's are): a final event records on the alert what became of its SMS, named by the
 * `Context` the send carried. `TEXT_DELIVERED` is `delivered`; `TEXT_TTL_EXPIRED` is `expired` (the carrier did
 * not take it within its TimeToLive: it is recorded and never sent again); any other final event is
 * `carrierFailed`, with the service's description of the carrier's reason. Interim events are ignored.
 */
export const smsEventSchema = z.object({
  eventType: z.string().regex(/^TEXT_[A-Z_]+$/),
  isFinal: z.boolean().optional(),
  destinationPhoneNumber: z.string().max(20),
  messageId: z.string().max(100),
  messageStatus: z.string().max(100).optional(),
  messageStatusDescription: z.string().max(500).optional(),
  context: z.record(z.string(), z.string().max(500)).optional(),
});
export type SmsEvent = z.infer<typeof smsEventSchema>;

const INTERIM = new Set(['TEXT_QUEUED', 'TEXT_PENDING', 'TEXT_SUCCESSFUL']);

/** What a final event says, or null for an interim one. */
export function outcomeOfEvent(event: SmsEvent): Pick<SmsDelivery, 'outcome' | 'carrierReason'> | null {
  if (event.isFinal === false || INTERIM.has(event.eventType)) return null;
  const reason = event.messageStatusDescription ?? event.messageStatus ?? event.eventType;
  if (event.eventType === 'TEXT_DELIVERED') return { outcome: 'delivered' };
  if (event.eventType === 'TEXT_TTL_EXPIRED') return { outcome: 'expired', carrierReason: reason };
  return { outcome: 'carrierFailed', carrierReason: reason };
}

/** Records every final SMS event an SNS batch carries; anything else (an SES event, a malformed record) is skipped. */
export async function handleSmsEvents(event: SNSEvent, now: number): Promise<number> {
  let recorded = 0;
  for (const message of snsJsonMessages(event)) {
    const parsed = smsEventSchema.safeParse(message);
    if (!parsed.success) continue;
    const outcome = outcomeOfEvent(parsed.data);
    const alertId = parsed.data.context?.alertId;
    if (!outcome || !alertId) continue;
    if (await recordSmsOutcome(alertId, targetKeys.sms(parsed.data.destinationPhoneNumber), parsed.data.messageId, outcome, now)) recorded++;
    else logger.info('an SMS event names no SMS the alert recorded; ignored', { alertId, eventType: parsed.data.eventType });
  }
  return recorded;
}
