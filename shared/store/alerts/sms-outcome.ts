import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../aws/dynamodb';
import { resourcesConfig } from '../../config';
import type { SmsDelivery } from '../../schemas/alert';
import { conditionFailed } from '../dynamo';

/** Records an SMS event's outcome on the alert's SMS target `targetKey`, if that target carries the event's message id: false when it does not. */
export async function recordSmsOutcome(
  alertId: string,
  targetKey: string,
  messageId: string,
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
          '#key': targetKey,
          '#at': 'at',
          ...(failed ? { '#status': 'status', '#error': 'error' } : {}),
        },
        ExpressionAttributeValues: {
          ':outcome': outcome.outcome,
          ':at': new Date(now).toISOString(),
          ':messageId': messageId,
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
