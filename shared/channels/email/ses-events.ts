import * as z from 'zod';
import type { SNSEvent } from 'aws-lambda';
import { readConfig, senderSchema } from '../../config';
import { logger } from '../../observability/logger';
import { MetricName, MetricUnit, metrics } from '../../observability/metrics';
import { suppressAddress } from '../../store/email-consent/suppression';
import { countConfirmationFeedback, stopConfirmations } from '../../store/sender-guard';
import { snsJsonMessages } from '../sns-messages';

/**
 * SES event publishing (the configuration set's event destination, through SNS): a permanent bounce or a
 * complaint suppresses the address, so nothing more is sent to it. Transient bounces change nothing. On a
 * confirmation e-mail (its message tag names the client), each also counts against the client: past
 * CONFIRMATION_FEEDBACK_STOP in one day, the client's confirmations stop until an operator clears them.
 */
const recipientsSchema = z.array(z.object({ emailAddress: z.string().min(3).max(320) })).max(1_000);
/** The SES message tag of a confirmation e-mail; its value is the client it was sent for. */
export const CONFIRMATION_TAG = 'fleetwatch-confirmation';

/** The SES message tags of the e-mail, as the event reports them (`{ name: [value] }`). */
const mailSchema = z.object({ tags: z.record(z.string(), z.array(z.string().max(256)).max(10)).optional() }).optional();

export const sesEventSchema = z.discriminatedUnion('eventType', [
  z.object({
    eventType: z.literal('Bounce'),
    bounce: z.object({ bounceType: z.string(), bouncedRecipients: recipientsSchema }),
    mail: mailSchema,
  }),
  z.object({ eventType: z.literal('Complaint'), complaint: z.object({ complainedRecipients: recipientsSchema }), mail: mailSchema }),
]);

/** The client a confirmation e-mail was sent for, from its message tag; null for any other e-mail. */
export function confirmationClientOf(message: unknown): string | null {
  const parsed = sesEventSchema.safeParse(message);
  if (!parsed.success) return null;
  return parsed.data.mail?.tags?.[CONFIRMATION_TAG]?.[0] ?? null;
}

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

/** Applies every suppression an SNS batch of SES events carries; a malformed record is logged and skipped. */
export async function handleSesEvents(event: SNSEvent, now: number): Promise<number> {
  let suppressed = 0;
  for (const message of snsJsonMessages(event, (messageId) => logger.warn('SES event is not JSON; ignored', { messageId }))) {
    const suppressions = suppressionsOf(message);
    for (const { address, reason } of suppressions) {
      await suppressAddress(address, reason, now);
      suppressed++;
    }
    const clientId = confirmationClientOf(message);
    if (clientId && suppressions.length > 0) await countAgainstClient(clientId, suppressions.length, now);
  }
  if (suppressed > 0) logger.info('addresses suppressed after SES events', { count: suppressed });
  return suppressed;
}

/** Bounces or complaints on a client's confirmation e-mails; enough of them in a day stop its confirmations. */
async function countAgainstClient(clientId: string, events: number, now: number): Promise<void> {
  const threshold = readConfig(senderSchema()).CONFIRMATION_FEEDBACK_STOP;
  let count = 0;
  for (let event = 0; event < events; event++) count = await countConfirmationFeedback(clientId, now);
  metrics.addMetric(MetricName.ConfirmationFeedback, MetricUnit.Count, events);
  if (count < threshold) return;
  if (await stopConfirmations(clientId, `${count} bounces or complaints on its confirmation e-mails in one day`, now)) {
    metrics.addMetric(MetricName.ConfirmationsStopped, MetricUnit.Count, 1);
    logger.error(
      "client's address confirmations stopped after bounces or complaints; clear with `npm run admin -- confirmation-stops --clear <clientId>`",
      {
        clientId,
        events: count,
        threshold,
      },
    );
  }
}
