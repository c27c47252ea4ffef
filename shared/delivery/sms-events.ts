import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SNSEvent } from 'aws-lambda';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { logger } from '../observability/logger';
import type { SmsDelivery } from '../schemas/alert';
import { targetKeys } from './targets';
import { conditionFailed } from '../store/dynamo';

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

/** Records one event's outcome on its alert's SMS target, if that target carries the event's message id. */
async function recordOutcome(
  alertId: string,
  event: SmsEvent,
  outcome: Pick<SmsDelivery, 'outcome' | 'carrierReason'>,
  now: number,
): Promise<boolean> {
  const failed = outcome.outcome !== 'delivered';
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: resourcesConfig().ALERTS_TABLE,
        Key: { alertId },
        UpdateExpression:
          'SET deliveries.#key.sms.outcome = :outcome, deliveries.#key.#at = :at' +
          (outcome.carrierReason ? ', deliveries.#key.sms.carrierReason = :reason' : '') +
          (failed ? ', deliveries.#key.#status = :failed, deliveries.#key.#error = :error' : ''),
        ConditionExpression: 'deliveries.#key.sms.messageId = :messageId',
        ExpressionAttributeNames: {
          '#key': targetKeys.sms(event.destinationPhoneNumber),
          '#at': 'at',
          ...(failed ? { '#status': 'status', '#error': 'error' } : {}),
        },
        ExpressionAttributeValues: {
          ':outcome': outcome.outcome,
          ':at': new Date(now).toISOString(),
          ':messageId': event.messageId,
          ...(outcome.carrierReason ? { ':reason': outcome.carrierReason } : {}),
          ...(failed
            ? {
                ':failed': 'failed',
                ':error':
                  outcome.outcome === 'expired'
                    ? `expired unsent: ${outcome.carrierReason}`
                    : `the carrier did not deliver it: ${outcome.carrierReason}`,
              }
            : {}),
        },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/** Records every final SMS event an SNS batch carries; anything else (an SES event, a malformed record) is skipped. */
export async function handleSmsEvents(event: SNSEvent, now: number): Promise<number> {
  let recorded = 0;
  for (const record of event.Records) {
    let message: unknown;
    try {
      message = JSON.parse(record.Sns.Message);
    } catch {
      continue;
    }
    const parsed = smsEventSchema.safeParse(message);
    if (!parsed.success) continue;
    const outcome = outcomeOfEvent(parsed.data);
    const alertId = parsed.data.context?.alertId;
    if (!outcome || !alertId) continue;
    if (await recordOutcome(alertId, parsed.data, outcome, now)) recorded++;
    else logger.info('an SMS event names no SMS the alert recorded; ignored', { alertId, eventType: parsed.data.eventType });
  }
  return recorded;
}
