import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../shared/aws/clients';
import { runAdmin } from '../../infra/admin/commands';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';

async function receiveAll(queueUrl: string) {
  const { Messages = [] } = await sqsClient().send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
      VisibilityTimeout: 0,
    }),
  );
  return Messages;
}

describe('npm run admin -- redrive', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('admin-redrive');
    vi.stubEnv('INPUT_QUEUE_URL', emulators.queues.input);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await emulators.stop();
  });

  it('moves dead delivery requests back to the deliveries queue, without their reason', async () => {
    for (const alertId of ['a1', 'a2', 'a3']) {
      await sqsClient().send(
        new SendMessageCommand({
          QueueUrl: emulators.queues.deliveriesDlq,
          MessageBody: JSON.stringify({ alertId }),
          MessageAttributes: { reason: { DataType: 'String', StringValue: 'SES throttled on the last receive' } },
        }),
      );
    }
    expect(await runAdmin(['redrive', 'deliveries'])).toMatchObject({ target: 'deliveries', moved: 3 });
    expect(await receiveAll(emulators.queues.deliveriesDlq)).toEqual([]);
    const back = await receiveAll(emulators.queues.deliveries);
    expect(back.map((message) => JSON.parse(message.Body!).alertId).sort()).toEqual(['a1', 'a2', 'a3']);
    expect(back.every((message) => message.MessageAttributes?.reason === undefined)).toBe(true);
  });

  it('puts terminal messages back on the FIFO input queue in their vehicle group, and honours --max', async () => {
    for (const [index, vehicleId] of [7001, 7002].entries()) {
      await sqsClient().send(
        new SendMessageCommand({
          QueueUrl: emulators.queues.inputDlq,
          MessageBody: JSON.stringify({ vehicleId, deviceTime: `2026-11-23T10:00:0${index}Z` }),
          MessageGroupId: String(vehicleId),
          MessageDeduplicationId: `dead-${vehicleId}`,
        }),
      );
    }
    expect(await runAdmin(['redrive', 'input', '--max', '1'])).toMatchObject({ moved: 1 });
    expect(await runAdmin(['redrive', 'input'])).toMatchObject({ moved: 1 });
    const back = await receiveAll(emulators.queues.input);
    expect(back.map((message) => message.Attributes?.MessageGroupId).sort()).toEqual(['7001', '7002']);
  });

  it('names the queue it needs', async () => {
    await expect(runAdmin(['redrive'])).rejects.toThrow(/input or deliveries/);
  });
});
