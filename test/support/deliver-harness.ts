import { afterAll, beforeAll, beforeEach, vi } from 'vitest';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { DeliverDependencies } from '../../functions/deliver/handler';
import type { Emulators } from '../../infra/local/emulators';
import { lambdaContext, type SqsHandler } from '../../infra/local/sqs-poller';
import { FakeSms } from '../../infra/local/sms-fake';
import { FakeTelegram } from '../../infra/local/telegram-fake';
import { resetClients } from '../../shared/aws/client-cache';
import { snsClient, sqsClient } from '../../shared/aws/clients';
import { forgetTelegramCredentials } from '../../shared/channels/telegram/credentials';
import { resetTelegramSender } from '../../shared/delivery/senders';
import { FakeSecretsManager } from '../delivery/support/fake-secrets-manager';
import { drainDeliveries } from '../delivery/support/drain-deliveries';
import { SnsStub } from '../delivery/support/sns-stub';
import { clearSentEmails, startTestEmulators } from './emulators';
import { deliverHandler } from './deliver-handler';

export { deliverHandler };

/**
 * What a deliver test sets up: its own emulators (DynamoDB Local tables, fauxqs queues, aws-ses-v2-local), and
 * on request the fake Bot API with its token in the fake Secrets Manager, and the SNS stub. Call it at the top
 * of a file or a describe block: it registers the beforeAll/afterAll (and beforeEach, see `resetEach`) hooks.
 * Environment variables go through `vi.stubEnv` and are restored after the block.
 */
export interface DeliverHarnessOptions {
  /** Names the emulators' tables and queues (`startTestEmulators`). */
  name: string;
  /** Starts the fake Bot API and puts its bot's credentials in the fake Secrets Manager under `secretId`. */
  telegram?: { botToken: string; webhookSecret?: string; secretId?: string };
  /** Starts the fake Secrets Manager even without Telegram. Implied by `telegram`. */
  secrets?: boolean;
  /** Installs the SNS stub in the shared SNS client. */
  sns?: boolean;
  /**
   * Starts the SMS fake (no emulator of End User Messaging SMS exists) and switches SMS on, to it, for Azerbaijan
   * (+994) numbers.
   */
  sms?: boolean;
  /** Environment of the functions, stubbed after the emulators start and restored after the block. */
  env?: Record<string, string>;
  /** The deliver handler's dependencies besides the defaults (its clock, senders, maxReceiveCount). */
  dependencies?: Partial<DeliverDependencies>;
  /**
   * Before each test: forget the fake Bot API's messages, the SNS stub's calls and the SES inbox. Default true;
   * false leaves them to the file.
   */
  resetEach?: boolean;
}

export interface DeliverHarness {
  /** The emulators; only inside tests and hooks (they start in beforeAll). */
  readonly emulators: Emulators;
  /** The fake Bot API (started only with the `telegram` option). */
  readonly telegram: FakeTelegram;
  readonly secrets: FakeSecretsManager;
  readonly sns: SnsStub;
  /** The SMS fake (started only with the `sms` option). */
  readonly sms: FakeSms;
  /** The deliver handler made with the `dependencies` option. */
  readonly handler: SqsHandler;
  /** Another deliver handler, such as one with a later clock. */
  createHandler(dependencies?: Partial<DeliverDependencies>): SqsHandler;
  /** Runs the handler on records (or a whole event) as Lambda would, without the queue. */
  deliver(records: SQSRecord[] | SQSEvent, handler?: SqsHandler): ReturnType<SqsHandler>;
  /** Sends `{ alertId }` to the deliveries queue. */
  enqueue(alertId: string): Promise<void>;
  /**
   * Hands the deliveries queue to the handler until a receive finds it empty or `rounds` receives were made; with
   * `mustEmpty`, running out of rounds first throws.
   */
  drainDeliveries(options?: { rounds?: number; handler?: SqsHandler; mustEmpty?: boolean }): Promise<number>;
}

export function useDeliverHarness(options: DeliverHarnessOptions): DeliverHarness {
  let emulators: Emulators | undefined;
  const telegram = new FakeTelegram();
  const secrets = new FakeSecretsManager();
  const sns = new SnsStub();
  const sms = new FakeSms();
  const handler = deliverHandler(options.dependencies);
  const withSecrets = options.secrets === true || options.telegram !== undefined;

  beforeAll(async () => {
    emulators = await startTestEmulators(options.name);
    if (options.telegram) vi.stubEnv('TELEGRAM_API_ROOT', await telegram.start());
    if (withSecrets) vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', await secrets.start());
    if (options.telegram) {
      const { botToken, webhookSecret = 'hook-secret', secretId = 'fleetwatch/telegram' } = options.telegram;
      vi.stubEnv('TELEGRAM_SECRET_ID', secretId);
      secrets.secrets.set(secretId, JSON.stringify({ botToken, webhookSecret }));
    }
    if (options.sms) {
      vi.stubEnv('AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2', await sms.start());
      vi.stubEnv('SMS_COUNTRIES', 'AZ');
      vi.stubEnv('SMS_ORIGINATION_IDENTITY', 'pool-fleetwatch');
      vi.stubEnv('SMS_CONFIGURATION_SET', 'fleetwatch');
    }
    for (const [name, value] of Object.entries(options.env ?? {})) vi.stubEnv(name, value);
    // the SMS client is made once with its endpoint
    if (options.sms) resetClients();
    forgetTelegramCredentials();
    resetTelegramSender();
    if (options.sns) sns.install(await snsClient());
  });
  afterAll(async () => {
    if (options.sns) sns.uninstall(await snsClient());
    vi.unstubAllEnvs();
    await Promise.all([emulators?.stop(), options.telegram && telegram.stop(), withSecrets && secrets.stop(), options.sms && sms.stop()]);
  });
  if (options.resetEach !== false) {
    beforeEach(async () => {
      telegram.reset();
      sns.calls.length = 0;
      sms.sent.length = 0;
      sms.requests.length = 0;
      await clearSentEmails(harness.emulators);
    });
  }

  const harness: DeliverHarness = {
    get emulators(): Emulators {
      if (!emulators) throw new Error('the emulators start in beforeAll: use them inside tests and hooks');
      return emulators;
    },
    telegram,
    secrets,
    sns,
    sms,
    handler,
    createHandler: deliverHandler,
    deliver(records, using = handler) {
      const event = Array.isArray(records) ? { Records: records } : records;
      return using(event, lambdaContext('deliver'));
    },
    async enqueue(alertId) {
      await sqsClient().send(new SendMessageCommand({ QueueUrl: harness.emulators.queues.deliveries, MessageBody: JSON.stringify({ alertId }) }));
    },
    drainDeliveries({ rounds, handler: using = handler, mustEmpty } = {}) {
      return drainDeliveries(harness.emulators.queues.deliveries, using, rounds, mustEmpty);
    },
  };
  return harness;
}
