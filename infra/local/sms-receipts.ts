import { randomUUID } from 'node:crypto';
import type { Context, SNSEvent } from 'aws-lambda';
import { lambdaContext, type SqsHandler } from './sqs-poller';
import { invoke } from './invocation';

export type SnsHandler = (event: SNSEvent, context: Context) => Promise<unknown>;

/** The SMS configuration set's SNS topic of `npm start`; only its shape matters. */
const TOPIC_ARN = 'arn:aws:sns:us-east-1:000000000000:fleetwatch-local-sms-events';

/** One SNS record carrying a delivery event, as the topic hands it to a subscribed Lambda function. */
export function smsEventRecord(message: string, now: number): SNSEvent['Records'][number] {
  return {
    EventSource: 'aws:sns',
    EventVersion: '1.0',
    EventSubscriptionArn: `${TOPIC_ARN}:${randomUUID()}`,
    Sns: {
      Type: 'Notification',
      MessageId: randomUUID(),
      TopicArn: TOPIC_ARN,
      Subject: '',
      Message: message,
      Timestamp: new Date(now).toISOString(),
      SignatureVersion: '1',
      Signature: '',
      SigningCertUrl: '',
      UnsubscribeUrl: '',
      MessageAttributes: {},
    },
  };
}

export interface SmsReceipts {
  /** Takes a delivery event from the SMS fake (its `onEvent`). */
  publish(message: string): void;
  /** Wraps the deliver poller's handler: events of SMS sent while it runs wait until it has returned. */
  around(handler: SqsHandler): SqsHandler;
  /** Waits for the events already fed. */
  stop(): Promise<void>;
}

/**
 * Plays the SNS subscription of the deliver function to the SMS configuration set's topic: the fake's delivery
 * events reach the deliver handler as SNS events, the path they take deployed. A carrier's receipt comes after the
 * send was recorded on its alert, which the deliver invocation does once the send returns; so events wait while a
 * deliver invocation runs, or they would find no message id to match and be dropped.
 */
export function startSmsReceipts(deliver: SnsHandler, onError: (error: unknown) => void): SmsReceipts {
  let running = 0;
  const waiting: string[] = [];
  let feeding: Promise<void> = Promise.resolve();
  const flush = () => {
    if (running > 0 || waiting.length === 0) return;
    const event: SNSEvent = { Records: waiting.splice(0).map((message) => smsEventRecord(message, Date.now())) };
    feeding = feeding.then(async () => {
      try {
        const context = lambdaContext('fleetwatch-deliver');
        await invoke(context, () => deliver(event, context));
      } catch (error) {
        onError(error);
      }
    });
  };
  return {
    publish(message) {
      waiting.push(message);
      flush();
    },
    around(handler) {
      return async (event, context) => {
        running++;
        try {
          return await handler(event, context);
        } finally {
          running--;
          flush();
        }
      };
    },
    stop: () => feeding,
  };
}
