import { resolve } from 'node:path';
import { CfnOutput, Duration, Stack, Tags, Validations, type StackProps } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import {
  grantCreatePlatformEndpoint,
  grantGeocode,
  grantPushEndpoints,
  grantReadQueueAge,
  grantReadSendQuota,
  grantSendEmail,
} from './constructs/channel-permissions';
import { DataTables } from './constructs/data-tables';
import { SesFeedback } from './constructs/ses-feedback';
import { SmsChannel } from './constructs/sms-channel';
import { DeployParameters } from './constructs/deploy-parameters';
import { deliveryPacing } from './constructs/delivery-pacing';
import { FleetwatchFunction, type FunctionName } from './constructs/fleetwatch-function';
import { MAX_RECEIVE_COUNT, MessageQueues } from './constructs/message-queues';
import { Monitoring } from './constructs/monitoring';
import { PublicHttpApi } from './constructs/public-http-api';
import { TelegramSecret } from './constructs/telegram-secret';
import { makeThrowaway } from './constructs/throwaway';
import type { VehicleClock } from '../shared/config';
import {
  ALARM_TOPIC_ARN_OUTPUT,
  API_URL_OUTPUT,
  DASHBOARD_NAME_OUTPUT,
  OUTPUT_DESCRIPTIONS,
  QUEUE_OUTPUTS,
  STACK_TAG,
  TELEGRAM_SECRET_NAME_OUTPUT,
  TELEGRAM_WEBHOOK_URL_OUTPUT,
} from './stack-facts';
import { PK } from '../shared/store/keys';
import { indexUpgrade, stackContext, vehicleStateCapacity, type StackContext } from './context';

/** The repository root, where `functions/`, `shared/` and `package-lock.json` live. */
export const PROJECT_ROOT = resolve(import.meta.dirname, '..');

/** Per-function timeouts; the queues' visibility timeouts derive from them. */
export const FUNCTION_TIMEOUTS: Record<FunctionName, Duration> = {
  evaluate: Duration.seconds(30),
  // Telegram may ask to retry after a few seconds (429 retry_after); SES and push are retried by the SDK.
  deliver: Duration.seconds(60),
  // Shorter than the schedule's period, so two sweeps never overlap.
  sweep: Duration.seconds(50),
  // API Gateway HTTP APIs give up after 30 seconds.
  api: Duration.seconds(25),
  telegram: Duration.seconds(15),
  // A rule listing many vehicles touches each vehicle's item once.
  project: Duration.seconds(120),
};

/** Partition-key prefixes of the directory table the deliver and telegram functions may touch. */
export const DELIVER_DIRECTORY_KEYS = [
  PK.user,
  PK.agent,
  PK.vehicle,
  PK.telegramChat,
  PK.sideMail,
  PK.optOut,
  PK.suppressed,
  PK.sender,
  PK.confirmStops,
  PK.confirmWait,
  PK.smsOptOut,
  PK.smsSpend,
  // the short links of alert SMS (PutItem only); the API reads them
  PK.shortLink,
] as const;
/** Confirmations that waited for their client's daily budget: the sweep finds them by day and forgets them once enqueued. */
export const SWEEP_DIRECTORY_KEYS = [PK.confirmWait] as const;
/** Interrupted feeds the sweep holds connection-loss alerts for (shared/store/feed-outages.ts): recorded, seen, ended. */
export const SWEEP_FEED_OUTAGE_KEYS = [PK.feedOutage] as const;
/** Alert e-mails held for a recipient's digest (DIGEST#) and the digests themselves (DIGESTDUE#). */
export const DELIVER_DIGEST_KEYS = [PK.digest, PK.digestDue] as const;
/** The digests due: the sweep finds them and makes each due again an interval later as it enqueues it. */
export const SWEEP_DIGEST_KEYS = [PK.digestDue] as const;
export const TELEGRAM_DIRECTORY_KEYS = [PK.telegramCode, PK.telegramChat, PK.user] as const;
/** Each client's maintenance silences and their count (shared/schemas/silence.ts): evaluate and the sweep read them, one Query per client. */
export const SILENCE_DIRECTORY_KEYS = [PK.silence] as const;
/** On-call rotas (shared/schemas/rota.ts): the sweep reads those an escalation level names, to find who is on call. */
export const SWEEP_ROTA_KEYS = [PK.rota] as const;
/** What the acknowledge button reads besides: the clients above an alert's, to check the presser's scope. */
export const TELEGRAM_SCOPE_KEYS = [PK.agent] as const;
/**
 * The webhook endpoints of each client: deliver lists them (Query), disables one that answered 410, writes each
 * one's health (UpdateItem) and reads the one a notice is about (GetItem).
 */
export const DELIVER_WEBHOOK_KEYS = [PK.webhooks] as const;
/**
 * The circuit breakers (shared/store/circuit-store.ts): shared destinations' health (DESTINATION#), the open lists
 * (FAILING#), the held lists (HELD, HELD#: deliver adds the alerts it holds), and the notices of endpoints disabled
 * after days of failure (WEBHOOKNOTICE), which deliver sends.
 */
export const DELIVER_CIRCUIT_KEYS = [PK.destination, PK.failing, PK.heldLists, PK.webhookNotice] as const;
/** A client's users, listed (Query) for the notices that one of its endpoints was disabled, or that it reached its SMS spend cap. */
export const DELIVER_CLIENT_USER_KEYS = [PK.agent] as const;
/**
 * The open lists, the held lists and the notices: the sweep probes open circuits through their oldest held alert,
 * drains the held lists of closed ones, disables endpoints open for days (with their notices) and counts the open
 * circuits.
 */
export const SWEEP_CIRCUIT_KEYS = [PK.failing, PK.heldLists, PK.webhookNotice] as const;
/**
 * The circuits' health, on a shared destination's item and on each webhook endpoint's: the sweep reads it
 * (GetItem) and claims a probe slot (UpdateItem), and disables an endpoint after days of failure (UpdateItem, in
 * the transaction with the notice).
 */
export const SWEEP_HEALTH_KEYS = [PK.destination, PK.webhooks] as const;
/** The outcomes of rules' test alerts: deliver writes them (PutItem only), the API reads them. */
export const DELIVER_TEST_RESULT_KEYS = [PK.testResult] as const;
/** The webhook endpoints' delivery logs: deliver records each attempt (PutItem), and a recovery reads them (Query). */
export const DELIVER_WEBHOOK_LOG_KEYS = [PK.webhookLog] as const;
/** Webhook recovery jobs (shared/store/webhook-recoveries.ts): deliver reads a job, takes its alerts on and moves it on. */
export const DELIVER_WEBHOOK_RECOVERY_KEYS = [PK.webhookRecovery] as const;

/** The client hierarchy only (`AGENT#…` / `CHILD#…`): project finds the clients below one whose zones changed. */
export const PROJECT_SCOPE_KEYS = [PK.agent] as const;

/** Minimum interval between two requests of one session, as the platform API's limits prescribe. */
const RATE_LIMIT_INTERVAL_MS = '1000';

export interface FleetwatchStackProps extends StackProps {
  /** Repository root to bundle the functions from; defaults to this repository. */
  projectRoot?: string;
  /** The account's SES maximum send rate (e-mails per second); defaults to the `sesMaxSendRate` context value. */
  sesMaxSendRate?: number;
  /** Geocode the address of address rules written without coordinates; defaults to the `geocoding` context value, on unless `false`. */
  geocoding?: boolean;
  /** How evaluate stores each vehicle's clock; defaults to the `vehicleClock` context value, `exact` unless given. */
  vehicleClock?: VehicleClock;
  /** Delete tables, log groups and the secret with the stack (test stacks); defaults to the `throwaway` context value, off unless `true`. */
  throwaway?: boolean;
}

/** What the stack's parts share: built first, in the constructor. */
interface StackParts {
  projectRoot: string;
  parameters: DeployParameters;
  data: DataTables;
  queues: MessageQueues;
  telegram: TelegramSecret;
  vehicleClock: VehicleClock;
  pushEnvironment: Record<string, string>;
  context: StackContext;
  /** Signs and checks the acknowledge links of alerts (deliver, api). */
  alertLinkKey: Secret;
}

/**
 * fleetwatch on AWS: terminal messages arrive on a FIFO queue and are evaluated against the notification
 * rules; alerts are stored once and delivered by e-mail, Telegram and push; an HTTP API manages rules.
 */
export class FleetwatchStack extends Stack {
  readonly tables: DataTables;
  readonly queues: MessageQueues;
  readonly functions: Record<FunctionName, FleetwatchFunction>;
  /** SMS, when the deployment turned it on (context smsCountries and smsOriginationIdentity). */
  private sms: SmsChannel | undefined;
  readonly httpApi: PublicHttpApi;
  readonly monitoring: Monitoring;
  readonly sesFeedback: SesFeedback;

  constructor(scope: Construct, id: string, props: FleetwatchStackProps = {}) {
    super(scope, id, {
      description: 'fleetwatch: notifications and event processing for vehicle fleets',
      ...props,
    });
    // every -c key, checked at once (infra/context.ts)
    const context = stackContext(this);
    const parameters = new DeployParameters(this);
    const data = new DataTables(this, 'DataTables', {
      vehicleStateCapacity: vehicleStateCapacity(context),
      indexUpgrade: indexUpgrade(context),
    });
    const queues = new MessageQueues(this, 'Queues', {
      evaluateTimeout: FUNCTION_TIMEOUTS.evaluate,
      deliverTimeout: FUNCTION_TIMEOUTS.deliver,
    });
    const telegram = new TelegramSecret(this, 'Telegram');
    const parts: StackParts = {
      alertLinkKey: this.addAlertLinkKey(),
      projectRoot: props.projectRoot ?? PROJECT_ROOT,
      parameters,
      data,
      queues,
      telegram,
      // evaluate and the sweep must agree on it: the sweep trusts the last-seen the way evaluate stores it
      vehicleClock: props.vehicleClock ?? context.vehicleClock,
      context,
      pushEnvironment: {
        PUSH_FCM_APPLICATION_ARN: parameters.fcmPlatformApplicationArn.valueAsString,
        PUSH_APNS_APPLICATION_ARN: parameters.apnsPlatformApplicationArn.valueAsString,
      },
    };

    const evaluate = this.addEvaluate(parts);
    const sweep = this.addSweep(parts);
    const project = this.addProject(parts);
    const { deliver, sesFeedback } = this.addDeliver(parts, props.sesMaxSendRate ?? context.sesMaxSendRate);
    this.sesFeedback = sesFeedback;
    const api = this.addApi(parts, props.geocoding ?? context.geocoding);
    this.allowSms(api, context);
    const telegramWebhook = this.addTelegramWebhook(parts);
    this.functions = { evaluate, sweep, deliver, api, telegram: telegramWebhook, project };

    const httpApi = new PublicHttpApi(this, 'PublicApi', { api: api.function, telegram: telegramWebhook.function });
    // links in notifications (address confirmation, unsubscribe, the alert page, the SMS short link) point at the API,
    // through its custom domain when the deployment names one
    deliver.function.addEnvironment('PUBLIC_API_URL', context.publicApiUrl || httpApi.apiUrl);
    const monitoring = this.addMonitoring(parts, httpApi);

    this.tables = data;
    this.queues = queues;
    this.httpApi = httpApi;
    this.monitoring = monitoring;
    this.addOutputs(telegram);

    // what `cdk destroy` retains is found again by this tag (npm run cleanup)
    Tags.of(this).add(STACK_TAG, this.stackName);
    if (props.throwaway ?? context.throwaway) makeThrowaway(this);
  }

  /** Evaluates the input queue's terminal messages against the rules; raises alerts and enqueues their delivery. */
  private addEvaluate({ projectRoot, data, queues, vehicleClock, context }: StackParts): FleetwatchFunction {
    const evaluate = new FleetwatchFunction(this, 'Evaluate', {
      name: 'evaluate',
      description: 'Evaluates terminal messages against the notification rules and raises alerts',
      projectRoot,
      timeout: FUNCTION_TIMEOUTS.evaluate,
      // Mostly waiting on DynamoDB, but the CPU part (about a third of a batch) slows with memory: at 512 MB a batch
      // takes half again as long for about 1% off the bill (docs/cost.md, evaluate's memory).
      memorySize: 1024,
      environment: {
        ...data.environmentFor('rules', 'geozones', 'vehicleState', 'alerts', 'visits', 'directory'),
        DELIVERIES_QUEUE_URL: queues.deliveries.queueUrl,
        INPUT_DLQ_URL: queues.inputDeadLetters.queueUrl,
        VEHICLE_CLOCK: vehicleClock,
        MAX_EVENT_AGE_SECONDS: String(context.maxEventAgeSeconds),
      },
    });
    // rules and geozones are read by id, through the rule cache; a client's zones for the visit journal by
    // the geozones' byParent index, once per zone-set version
    data.grant(evaluate.role, 'rules', ['GetItem', 'BatchGetItem']);
    data.grant(evaluate.role, 'geozones', ['GetItem', 'BatchGetItem', 'Query']);
    // visits are put; a rule's suppressed log (in the same table) has one entry set per closed run
    data.grant(evaluate.role, 'visits', ['PutItem', 'UpdateItem']);
    data.grant(evaluate.role, 'vehicleState', ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem']);
    data.grant(evaluate.role, 'alerts', ['GetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem']);
    // the maintenance silences of the vehicles' clients, one Query per client at most every 30 s; nothing else of the directory
    data.grant(evaluate.role, 'directory', ['Query'], { leadingKeys: SILENCE_DIRECTORY_KEYS });
    queues.deliveries.grantSendMessages(evaluate.role);
    queues.inputDeadLetters.grantSendMessages(evaluate.role);
    evaluate.function.addEventSource(
      new SqsEventSource(queues.input, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: context.evaluateMaxConcurrency }),
    );
    return evaluate;
  }

  /** Every minute: rule lifecycle, connection loss, the outbox of pending alerts. */
  private addSweep({ projectRoot, data, queues, vehicleClock, context }: StackParts): FleetwatchFunction {
    const sweep = new FleetwatchFunction(this, 'Sweep', {
      name: 'sweep',
      description:
        'Every minute: rule activation, expiry and auto-prolongation, connection loss, pending-alert outbox, confirmations that waited for the budget',
      projectRoot,
      timeout: FUNCTION_TIMEOUTS.sweep,
      memorySize: 1024,
      // The next run is a minute away and does the same work; retrying a failed run only makes runs overlap.
      asyncRetryAttempts: 0,
      environment: {
        ...data.environmentFor('rules', 'geozones', 'vehicleState', 'alerts', 'directory', 'visits'),
        DELIVERIES_QUEUE_URL: queues.deliveries.queueUrl,
        INPUT_QUEUE_NAME: queues.input.queueName,
        VEHICLE_CLOCK: vehicleClock,
        FEED_OUTAGE_SHARE: String(context.feedOutageShare),
        FEED_OUTAGE_MIN_VEHICLES: String(context.feedOutageMinVehicles),
      },
    });
    grantReadQueueAge(sweep.role);
    // lifecycle through the rules' expiry index; rules and geozones through the same rule cache as evaluate's;
    // silent vehicles through the state table's silence index
    data.grant(sweep.role, 'rules', ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem']);
    data.grant(sweep.role, 'geozones', ['GetItem', 'BatchGetItem']);
    data.grant(sweep.role, 'vehicleState', ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem']);
    data.grant(sweep.role, 'alerts', ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem']);
    // connection-loss suppressions close runs of the rules' suppressed logs
    data.grant(sweep.role, 'visits', ['UpdateItem']);
    queues.deliveries.grantSendMessages(sweep.role);
    data.grant(sweep.role, 'directory', ['Query', 'DeleteItem'], { leadingKeys: SWEEP_DIRECTORY_KEYS });
    data.grant(sweep.role, 'directory', ['Query', 'PutItem', 'UpdateItem', 'DeleteItem'], { leadingKeys: SWEEP_FEED_OUTAGE_KEYS });
    data.grant(sweep.role, 'directory', ['Query', 'UpdateItem'], { leadingKeys: SWEEP_DIGEST_KEYS });
    data.grant(sweep.role, 'directory', ['Query', 'PutItem', 'UpdateItem', 'DeleteItem'], { leadingKeys: SWEEP_CIRCUIT_KEYS });
    data.grant(sweep.role, 'directory', ['GetItem', 'UpdateItem'], { leadingKeys: SWEEP_HEALTH_KEYS });
    // maintenance silences, read as evaluate reads them, for the connection losses and episodes they hold back
    data.grant(sweep.role, 'directory', ['Query'], { leadingKeys: SILENCE_DIRECTORY_KEYS });
    data.grant(sweep.role, 'directory', ['GetItem'], { leadingKeys: SWEEP_ROTA_KEYS });
    new Rule(this, 'SweepSchedule', {
      description: 'Runs the fleetwatch sweep every minute',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(sweep.function, { retryAttempts: 2, maxEventAge: Duration.minutes(1) })],
    });
    return sweep;
  }

  /** Projects rule and geozone changes (DynamoDB Streams) onto the items of the vehicles they affect. */
  private addProject({ projectRoot, data }: StackParts): FleetwatchFunction {
    const project = new FleetwatchFunction(this, 'Project', {
      name: 'project',
      description: 'Projects rule and geozone changes (DynamoDB Streams) onto the items of the vehicles they affect',
      projectRoot,
      timeout: FUNCTION_TIMEOUTS.project,
      memorySize: 512,
      environment: data.environmentFor('rules', 'geozones', 'vehicleState', 'directory'),
    });
    data.grant(project.role, 'rules', ['GetItem', 'BatchGetItem', 'Query']);
    data.grant(project.role, 'directory', ['Query'], { leadingKeys: PROJECT_SCOPE_KEYS });
    data.grant(project.role, 'geozones', ['GetItem', 'BatchGetItem', 'Query']);
    data.grant(project.role, 'vehicleState', ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem']);
    // Lambda's stream poller needs dynamodb:ListStreams, which has no resource-level permission.
    Validations.of(project.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'dynamodb:ListStreams, granted by the DynamoDB event source, supports no resource-level permission.',
    });
    for (const key of ['rules', 'geozones'] as const) {
      project.function.addEventSource(
        new DynamoEventSource(data.tables[key], {
          startingPosition: StartingPosition.LATEST,
          batchSize: 100,
          reportBatchItemFailures: true,
          bisectBatchOnError: true,
          retryAttempts: 10,
        }),
      );
    }
    return project;
  }

  /** Sends alerts by e-mail, Telegram, push and webhooks, paced under the account's SES send rate; takes SES feedback. */
  private addDeliver(
    { projectRoot, parameters, data, queues, telegram, pushEnvironment, context, alertLinkKey }: StackParts,
    sesMaxSendRate: number,
  ): { deliver: FleetwatchFunction; sesFeedback: SesFeedback } {
    const pacing = deliveryPacing(sesMaxSendRate, context.deliverMaxConcurrency);
    const deliver = new FleetwatchFunction(this, 'Deliver', {
      name: 'deliver',
      description: 'Sends alert notifications by e-mail (SES), Telegram, mobile push (SNS) and signed webhooks',
      projectRoot,
      timeout: FUNCTION_TIMEOUTS.deliver,
      memorySize: 512,
      withTemplates: true,
      // an SMS's country, for the allow-list and its price
      withPhonePlan: true,
      environment: {
        ...data.environmentFor('rules', 'directory', 'alerts'),
        DELIVERIES_DLQ_URL: queues.deliveryDeadLetters.queueUrl,
        // a webhook retry sets its own backoff on the record it came from (ChangeMessageVisibility)
        DELIVERIES_QUEUE_URL: queues.deliveries.queueUrl,
        DELIVERIES_MAX_RECEIVE_COUNT: String(MAX_RECEIVE_COUNT),
        SES_FROM_ADDRESS: parameters.senderAddress.valueAsString,
        SES_SEND_RATE_PER_FUNCTION: String(pacing.perFunctionRate),
        TELEGRAM_SECRET_ID: telegram.secret.secretArn,
        TELEGRAM_BOT_USERNAME: parameters.telegramBotUsername.valueAsString,
        ...pushEnvironment,
      },
    });
    data.grant(deliver.role, 'rules', ['GetItem']);
    // users, clients, vehicles, linked chats and e-mail consent; never sessions or credentials (LOGIN#, SESSION#)
    data.grant(deliver.role, 'directory', ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem'], { leadingKeys: DELIVER_DIRECTORY_KEYS });
    data.grant(deliver.role, 'directory', ['GetItem', 'Query', 'UpdateItem'], { leadingKeys: DELIVER_WEBHOOK_KEYS });
    data.grant(deliver.role, 'directory', ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], { leadingKeys: DELIVER_CIRCUIT_KEYS });
    data.grant(deliver.role, 'directory', ['Query'], { leadingKeys: DELIVER_CLIENT_USER_KEYS });
    data.grant(deliver.role, 'directory', ['PutItem'], { leadingKeys: DELIVER_TEST_RESULT_KEYS });
    data.grant(deliver.role, 'directory', ['Query', 'PutItem'], { leadingKeys: DELIVER_WEBHOOK_LOG_KEYS });
    data.grant(deliver.role, 'directory', ['GetItem', 'PutItem', 'UpdateItem'], { leadingKeys: DELIVER_WEBHOOK_RECOVERY_KEYS });
    data.grant(deliver.role, 'directory', ['Query', 'PutItem', 'UpdateItem', 'DeleteItem'], { leadingKeys: DELIVER_DIGEST_KEYS });
    // a webhook recovery reads the alerts of one step of the log at once
    data.grant(deliver.role, 'alerts', ['GetItem', 'BatchGetItem', 'UpdateItem']);
    queues.deliveryDeadLetters.grantSendMessages(deliver.role);
    // a webhook recovery queues its next step
    queues.deliveries.grantSendMessages(deliver.role);
    telegram.secret.grantRead(deliver.role);
    alertLinkKey.grantRead(deliver.role);
    deliver.function.addEnvironment('ALERT_LINK_SECRET_ID', alertLinkKey.secretArn);
    const sesFeedback = new SesFeedback(this, 'SesFeedback', { consumer: deliver.function });
    deliver.function.addEnvironment('SES_CONFIGURATION_SET', sesFeedback.configurationSet.configurationSetName);
    grantSendEmail(deliver.role, { address: parameters.senderAddress.valueAsString, configurationSetArn: sesFeedback.configurationSetArn });
    grantReadSendQuota(deliver.role);
    this.addSms(deliver, context);
    // Publish to devices; delete an endpoint SNS reports as disabled (uninstalled app, expired token).
    grantPushEndpoints(deliver.role, ['sns:Publish', 'sns:DeleteEndpoint']);
    deliver.function.addEventSource(
      new SqsEventSource(queues.deliveries, {
        batchSize: 10,
        // Short: a few alerts raised together go out in one invocation, without making anyone wait.
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        // with each function's own pacing, a burst of alerts stays under the account's SES send rate
        maxConcurrency: pacing.maxConcurrency,
      }),
    );
    return { deliver, sesFeedback };
  }

  /**
   * SMS, when the deployment names countries and an origination identity: the configuration set with its events,
   * the settings, and a grant to send only from that identity with that set. The cap notice finds the client's
   * users through their client links (AGENT#).
   */
  private addSms(deliver: FleetwatchFunction, context: StackContext): void {
    deliver.function.addEnvironment('SMS_MONTHLY_CAP_USD', String(context.smsMonthlyCapUsd));
    deliver.function.addEnvironment('SMS_PRICES', context.smsPrices);
    if (!context.smsCountries || !context.smsOriginationIdentity) return;
    this.sms = new SmsChannel(this, 'Sms', { consumer: deliver.function, originationIdentityArn: context.smsOriginationIdentity });
    this.allowSms(deliver, context);
  }

  /** A function that sends SMS (deliver: alerts; api: verification codes). */
  private allowSms(fn: FleetwatchFunction, context: StackContext): void {
    if (!this.sms) return;
    fn.function.addEnvironment('SMS_COUNTRIES', context.smsCountries);
    fn.function.addEnvironment('SMS_ORIGINATION_IDENTITY', context.smsOriginationIdentity);
    fn.function.addEnvironment('SMS_CONFIGURATION_SET', this.sms.configurationSet.ref);
    this.sms.grantSend(fn.role);
  }

  /** The HTTP API v3: sessions, directory, rules, geozones, history, channels; geocoding when on. */
  private addApi(
    { projectRoot, parameters, data, queues, pushEnvironment, vehicleClock, context, alertLinkKey }: StackParts,
    geocoding: boolean,
  ): FleetwatchFunction {
    const api = new FleetwatchFunction(this, 'Api', {
      name: 'api',
      description: 'fleetwatch HTTP API v3: sessions, directory, notification rules, geozones, alert history, channels',
      projectRoot,
      timeout: FUNCTION_TIMEOUTS.api,
      // scrypt password hashing at login is CPU-bound.
      memorySize: 1024,
      // a rule's preview answers the text of each alert's e-mail, and replays vehicles under evaluate's clock
      withTemplates: true,
      // users' phone numbers are checked at save
      withPhonePlan: true,
      // no backlog of evaluate or deliver can take the API's concurrency
      reservedConcurrency: context.apiReservedConcurrency || undefined,
      environment: {
        ...data.environmentFor('rules', 'geozones', 'directory', 'alerts', 'visits', 'vehicleState'),
        RATE_LIMIT_INTERVAL_MS,
        VEHICLE_CLOCK: vehicleClock,
        MAX_EVENT_AGE_SECONDS: String(context.maxEventAgeSeconds),
        // confirmation links of side addresses, and alerts held for them, go out through the deliver function
        DELIVERIES_QUEUE_URL: queues.deliveries.queueUrl,
        TELEGRAM_BOT_USERNAME: parameters.telegramBotUsername.valueAsString,
        ...pushEnvironment,
      },
    });
    // a geozone's deletion scans the rules for references to it
    data.grant(api.role, 'rules', ['GetItem', 'Query', 'Scan', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem']);
    data.grant(api.role, 'geozones', ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem']);
    data.grant(api.role, 'directory', ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem']);
    // acknowledging and closing alerts is one conditional UpdateItem each
    data.grant(api.role, 'alerts', ['GetItem', 'Query', 'UpdateItem']);
    data.grant(api.role, 'visits', ['Query']);
    // registering a vehicle writes its owner chain and zone sets (reading them first to repair a half-done registration);
    // finding vehicles reads the byOwner index
    data.grant(api.role, 'vehicleState', ['GetItem', 'UpdateItem', 'Query']);
    queues.deliveries.grantSendMessages(api.role);
    this.addHistoryTokenKey(api);
    alertLinkKey.grantRead(api.role);
    api.function.addEnvironment('ALERT_LINK_SECRET_ID', alertLinkKey.secretArn);
    if (geocoding) {
      api.function.addEnvironment('GEOCODER', 'amazon-location');
      grantGeocode(api.role);
    }
    // a device token registered by another user moves to the caller: its endpoint's owner is read and rewritten
    grantPushEndpoints(api.role, ['sns:GetEndpointAttributes', 'sns:SetEndpointAttributes']);
    grantCreatePlatformEndpoint(api, api.role, [
      { id: 'Fcm', arn: parameters.fcmPlatformApplicationArn.valueAsString, condition: parameters.hasFcmPlatformApplication },
      { id: 'Apns', arn: parameters.apnsPlatformApplicationArn.valueAsString, condition: parameters.hasApnsPlatformApplication },
    ]);
    return api;
  }

  /** The key that signs alerts' one-click acknowledge links: deliver signs them, the api function checks them. */
  private addAlertLinkKey(): Secret {
    const key = new Secret(this, 'AlertLinkKey', {
      description: "fleetwatch: HMAC key of alerts' acknowledge links in e-mails and push notifications (generated; no one needs to read it)",
      generateSecretString: { excludePunctuation: true, passwordLength: 64 },
    });
    Validations.of(key).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'A link acknowledges one alert and expires after 7 days. Replacing the key with put-secret-value ends every link sent before, ' +
        'so it is changed by hand rather than on a schedule.',
    });
    return key;
  }

  /** The key that signs the history endpoint's page tokens: generated here, read by the api function at cold start. */
  private addHistoryTokenKey(api: FleetwatchFunction): void {
    const key = new Secret(this, 'HistoryTokenKey', {
      description: "fleetwatch: HMAC key of the history endpoint's nextToken (generated; no one needs to read it)",
      generateSecretString: { excludePunctuation: true, passwordLength: 64 },
    });
    Validations.of(key).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The key only makes page tokens tamper-proof; the scope is checked again on every request. Replacing it with put-secret-value ' +
        'ends open page tokens (their next request answers 400), so it is changed by hand rather than on a schedule.',
    });
    api.function.addEnvironment('HISTORY_TOKEN_SECRET_ID', key.secretArn);
    key.grantRead(api.role);
  }

  /** The Telegram bot's webhook: links a chat to a fleetwatch user. */
  private addTelegramWebhook({ projectRoot, parameters, data, telegram }: StackParts): FleetwatchFunction {
    const telegramWebhook = new FleetwatchFunction(this, 'TelegramWebhook', {
      name: 'telegram',
      description: "Telegram bot webhook: links a chat to a fleetwatch user (/start <code>); the alerts' acknowledge and mute buttons",
      projectRoot,
      timeout: FUNCTION_TIMEOUTS.telegram,
      memorySize: 256,
      // the acknowledge button's answer and message edit are written in the user's language
      withTemplates: true,
      environment: {
        ...data.environmentFor('directory', 'alerts', 'rules'),
        TELEGRAM_SECRET_ID: telegram.secret.secretArn,
        TELEGRAM_BOT_USERNAME: parameters.telegramBotUsername.valueAsString,
      },
    });
    // link codes, linked chats and the users' chat maps; never sessions or credentials
    data.grant(telegramWebhook.role, 'directory', ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], { leadingKeys: TELEGRAM_DIRECTORY_KEYS });
    data.grant(telegramWebhook.role, 'directory', ['GetItem'], { leadingKeys: TELEGRAM_SCOPE_KEYS });
    // the acknowledge button: read the alert, then one conditional UpdateItem
    data.grant(telegramWebhook.role, 'alerts', ['GetItem', 'UpdateItem']);
    // the mute buttons: the rule's timezone, then a silence of the alert's client, counted in its partition (a
    // conditional put and the count's update in one transaction; a full count counted again by Query)
    data.grant(telegramWebhook.role, 'rules', ['GetItem']);
    data.grant(telegramWebhook.role, 'directory', ['GetItem', 'PutItem', 'UpdateItem', 'Query'], { leadingKeys: SILENCE_DIRECTORY_KEYS });
    telegram.secret.grantRead(telegramWebhook.role);
    return telegramWebhook;
  }

  /** Alarms on every function, table, queue and the API stage, with their dashboard and topic. */
  private addMonitoring({ parameters, data, queues }: StackParts, httpApi: PublicHttpApi): Monitoring {
    return new Monitoring(this, 'Monitoring', {
      functions: Object.fromEntries(Object.entries(this.functions).map(([name, fn]) => [name, fn.function])),
      tables: data.tables,
      queues,
      apiStage: httpApi.stage,
      alarmEmail: { address: parameters.alarmEmail.valueAsString, condition: parameters.hasAlarmEmail },
    });
  }

  /** The API URL, the queues, the Telegram webhook and secret, the dashboard and the alarm topic (the tables' own are DataTables'). */
  private addOutputs(telegram: TelegramSecret): void {
    const { httpApi, queues, monitoring } = this;
    const output = (key: string, value: string) => new CfnOutput(this, key, { description: OUTPUT_DESCRIPTIONS[key], value });
    output(API_URL_OUTPUT, httpApi.apiUrl);
    output(QUEUE_OUTPUTS.input, queues.input.queueUrl);
    output(QUEUE_OUTPUTS.inputDeadLetters, queues.inputDeadLetters.queueUrl);
    output(QUEUE_OUTPUTS.deliveries, queues.deliveries.queueUrl);
    output(QUEUE_OUTPUTS.deliveryDeadLetters, queues.deliveryDeadLetters.queueUrl);
    output(TELEGRAM_WEBHOOK_URL_OUTPUT, httpApi.telegramWebhookUrl);
    output(TELEGRAM_SECRET_NAME_OUTPUT, telegram.secretName);
    output(DASHBOARD_NAME_OUTPUT, monitoring.dashboard.dashboardName);
    output(ALARM_TOPIC_ARN_OUTPUT, monitoring.topic.topicArn);
  }
}
