import * as z from 'zod';
import type { SNSEvent } from 'aws-lambda';
import { logger } from '../../observability/logger';
import { suppressAddress } from '../../store/email-consent';

/**
 * SES event publishing (the configuration set's event destination, through SNS): a permanent bounce or a
 * complaint suppresses the address, so nothing more is sent to it. Transient bounces change nothing.
 */
const recipientsSchema = z.array(z.object({ emailAddress: z.string().min(3).max(320) })).max(1_000);

export const sesEventSchema = z.discriminatedUnion('eventType', [
  z.object({ eventType: z.literal('Bounce'), bounce: z.object({ bounceType: z.string(), bouncedRecipients: recipientsSchema }) }),
  z.object({ eventType: z.literal('Complaint'), complaint: z.object({ complainedRecipients: recipientsSchema }) }),
]);

/** Addresses to suppress, with the reason, from one SES event (anything else it reports is ignored). */
export function suppressionsOf(message: unknown): { address: string; reason: string }[] {
  const parsed = sesEventSchema.safeParse(message);
  if (!parsed.success) return [];
  const event = parsed.data;
  if (event.eventType === 'Bounce') {
    if (event.bounce.bounceType !== 'Permanent') return [];
    return event.bounce.bouncedRecipients.map((recipient) => ({ address: recipient.emailAddress, reason: 'permanent bounce' }));
  }
  return event.complaint.complainedRecipients.map((recipient) => ({ address: recipient.emailAddress, reason: 'complaint' }));
}

export function isSnsEvent(event: unknown): event is SNSEvent {
  const records = (event as { Records?: { EventSource?: string }[] } | null)?.Records;
  return Array.isArray(records) && records.length > 0 && records.every((record) => record?.EventSource === 'aws:sns');
}

/** Applies every suppression an SNS batch of SES events carries; a malformed record is logged and skipped. */
export async function handleSesEvents(event: SNSEvent, now: number): Promise<number> {
  let suppressed = 0;
  for (const record of event.Records) {
    let message: unknown;
    try {
      message = JSON.parse(record.Sns.Message);
    } catch {
      logger.warn('SES event is not JSON; ignored', { messageId: record.Sns.MessageId });
      continue;
    }
    for (const { address, reason } of suppressionsOf(message)) {
      await suppressAddress(address, reason, now);
      suppressed++;
    }
  }
  if (suppressed > 0) logger.info('addresses suppressed after SES events', { count: suppressed });
  return suppressed;
}
