import { beforeAll, describe, expect, it } from 'vitest';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../shared/aws/clients';
import { handler as evaluate } from '../../functions/evaluate/handler';
import { handler as deliver } from '../../functions/deliver/handler';
import type { SqsHandler } from '../../infra/local/sqs-poller';
import { useDeliverHarness } from '../support/deliver-harness';
import { sentEmails } from '../support/emulators';
import { pollUntilEmpty } from '../support/poll-until-empty';
import { PARENT_ID, alertsInTable, putRule, storedRule, terminalMessage, T0 } from './support';
import { confirmSideEmails, registerFleet } from '../support/owned-fleet';

/**
 * Terminal messages on the input queue → evaluate → deliveries queue → deliver → the SES inbox, with the
 * deployed handlers as they are, driven the way Lambda's SQS event source mapping drives them.
 */
const VEHICLE = 4242;
const SIDE_EMAIL = 'dispatch@example.com';

describe('from terminal message to e-mail', () => {
  const harness = useDeliverHarness({ name: 'pipeline-e2e' });
  beforeAll(async () => {
    await registerFleet(PARENT_ID, [VEHICLE]);
    await confirmSideEmails(PARENT_ID, [SIDE_EMAIL]);
    // valid around the real clock, since the deployed handlers read it
    const now = Date.now();
    await putRule(
      storedRule({
        id: 77,
        name: 'Highway speeding',
        vehicleIds: [VEHICLE],
        settings: { limit: '90', minDuration: '10' },
        enableSideEmails: true,
        sideEmails: [SIDE_EMAIL],
        validFrom: new Date(now - 86_400_000).toISOString(),
        expiresAt: new Date(now + 86_400_000).toISOString(),
      }),
    );
  });

  /** Sends a short trace; `resend` gives the messages new deduplication ids, as a producer's retry would. */
  async function sendTrace(startedAt: number, resend = false): Promise<void> {
    const trace: [number, number][] = [
      [0, 60],
      [10, 100],
      [20, 112],
      [30, 115],
    ];
    const offset = (startedAt - T0) / 1000;
    await sqsClient().send(
      new SendMessageBatchCommand({
        QueueUrl: harness.emulators.queues.input,
        Entries: trace.map(([second, speed], index) => ({
          Id: String(index),
          MessageGroupId: String(VEHICLE),
          ...(resend ? { MessageDeduplicationId: `resend-${index}-${startedAt}` } : {}),
          MessageBody: JSON.stringify(terminalMessage(VEHICLE, offset + second, speed)),
        })),
      }),
    );
  }

  const evaluateInput = (handler: SqsHandler) =>
    pollUntilEmpty(harness.emulators.queues.input, handler, { functionName: 'evaluate', rounds: 20, mustEmpty: true });
  const deliverAll = () => harness.drainDeliveries({ handler: deliver, rounds: 20, mustEmpty: true });

  it('sends exactly one e-mail for a speeding episode, even when the batch is delivered twice', async () => {
    const startedAt = Date.now() - 120_000;
    await sendTrace(startedAt);

    // the first delivery of the batch is processed, but the acknowledgement is lost (the invocation dies
    // before returning), so the queue hands the same messages out again
    let crashed = false;
    const crashingOnce: SqsHandler = async (event, context) => {
      const response = await evaluate(event, context);
      if (!crashed) {
        crashed = true;
        throw new Error('invocation lost after processing');
      }
      return response;
    };
    await evaluateInput(crashingOnce);
    expect(crashed).toBe(true);

    await deliverAll();

    const emails = await sentEmails(harness.emulators);
    expect(emails).toHaveLength(1);
    const [email] = emails;
    expect(email!.destination.to).toEqual([SIDE_EMAIL]);
    expect(email!.subject).toContain(`Vehicle ${VEHICLE}`);
    expect(email!.subject).toContain('speeding, 112 km/h');
    expect(email!.body.text ?? email!.body.html).toContain('limit 90 km/h');

    const alerts = (await alertsInTable()).filter((alert) => alert.vehicleId === VEHICLE);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ status: 'delivered' });
    expect(alerts[0]!.outbox).toBeUndefined();

    // the producer sends the same trace again (new message ids): nothing new happens
    await sendTrace(startedAt, true);
    let evaluated = 0;
    const counting: SqsHandler = async (event, context) => {
      evaluated += event.Records.length;
      return evaluate(event, context);
    };
    await evaluateInput(counting);
    expect(evaluated).toBe(4);
    await deliverAll();
    expect(await sentEmails(harness.emulators)).toHaveLength(1);
    expect((await alertsInTable()).filter((alert) => alert.vehicleId === VEHICLE)).toHaveLength(1);
  });
});
