import { sendMessage } from '../aws/sqs';
import { resourcesConfig } from '../config';

/**
 * Parks a deliveries-queue message that can never be processed (malformed body) on the deliveries DLQ, with
 * the reason as a message attribute. Throws when that is impossible, so the message stays on its queue.
 */
export async function sendToDeliveriesDlq(body: string, reason: string): Promise<void> {
  const queueUrl = resourcesConfig().DELIVERIES_DLQ_URL;
  if (!queueUrl) throw new Error('DELIVERIES_DLQ_URL is not set');
  await sendMessage({
    QueueUrl: queueUrl,
    MessageBody: body.length > 0 ? body : '(empty)',
    MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 1000) } },
  });
}
