import { randomBytes, randomUUID } from 'node:crypto';
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, ScheduledEvent, SQSEvent } from 'aws-lambda';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { alertSchema, type Alert } from '../../shared/schemas/alert';
import { startEmulators, type Emulators } from './emulators';
import { startLocalProjector } from './projector';
import { startHttpServer, type HttpHandler, type HttpRoute, type RunningHttpServer } from './http-adapter';
import { startSecretsEmulator } from './secrets-emulator';
import { seedDemoData, seedDemoWebhook, type DemoData } from './seed';
import { startWebhookReceiver } from './webhook-receiver';
import { FakeTelegram } from './telegram-fake';
import { FakeSms } from './sms-fake';
import { startSmsReceipts, type SnsHandler } from './sms-receipts';
import { confirmCodeReply } from './sms-replies';
import { startDemoDispatcher } from './demo-dispatcher';
import { demoFleet, startSimulator, type RunningSimulator, type SimulatedVehicle } from './simulator';
import { lambdaContext, startPolling, type SqsHandler } from './sqs-poller';
import { invoke, useInvocationScopes } from './invocation';
import { applyLocalFunctionEnvironment } from './function-environment';
import { exportToFunctions, localAwsConfig } from './start-config';
import { apiUrlOf, telegramWebhookUrlOf } from '../stack-facts';
import { signAlertLink } from '../../shared/auth/alert-link-token';
import { alertPageLink } from '../../shared/delivery/links';
import { DEMO } from './demo';

export { localFunctionEnvironment } from './function-environment';

/**
 * The whole of fleetwatch on one machine: the emulators, the demo data, the same Lambda handlers that run
 * on AWS (fed by a poller playing the SQS event source mapping, a timer playing the EventBridge schedule
 * and an HTTP server playing API Gateway) and the fleet simulator.
 */

/** Name of the Telegram secret in the local Secrets Manager stand-in. */
export const LOCAL_TELEGRAM_SECRET = 'fleetwatch-local/telegram';
/** Name of the key that signs history page tokens, generated at each start as the stack generates its own. */
export const LOCAL_HISTORY_TOKEN_SECRET = 'fleetwatch-local/history-token';
export const LOCAL_ALERT_LINK_SECRET = 'fleetwatch-local/alert-link';

export type ScheduledHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

export interface LocalHandlers {
  evaluate: SqsHandler;
  deliver: SqsHandler;
  /**
   * The deliver function's SNS entry, which records SMS delivery events (the same handler as `deliver`, as deployed);
   * fed by the SMS fake's events. Not loaded when `deliver` is replaced, so a fake deliver gets no events.
   */
  smsEvents?: SnsHandler;
  sweep: ScheduledHandler;
  api: HttpHandler;
  /** Absent when the Telegram webhook cannot run locally. */
  telegram?: HttpHandler;
}

export interface LocalRuntimeOptions {
  /** Folder for local data (DynamoDB Local's database, fauxqs's queues); in memory when omitted. */
  dataDir?: string;
  /** `webhook`: the demo webhook receiver (default: any free port). */
  ports?: { dynamo?: number; ses?: number; sqs?: number; api?: number; webhook?: number; telegramFake?: number; smsFake?: number };
  /** A DynamoDB Local already running (tests share one); started with the runtime when omitted. */
  dynamoEndpoint?: string;
  /** Table and queue name prefix (default `fleetwatch`). */
  prefix?: string;
  /** Vehicles of the demo fleet (seeded, and driven when the simulator runs). */
  fleet?: SimulatedVehicle[];
  /** Runs the fleet simulator; `now` replaces the simulation clock. */
  simulator?: false | { now?: () => number };
  sweepIntervalMs?: number;
  /**
   * Batches of the input queue evaluated at once (default 4), as Lambda runs concurrent invocations: the handler
   * mostly waits on DynamoDB, so one poller at a time would cap throughput at one batch per round trip.
   */
  evaluateConcurrency?: number;
  /** Replaces handlers, e.g. fakes in tests; the rest come from functions/<name>/handler.ts. */
  handlers?: Partial<LocalHandlers>;
  /**
   * A real Telegram bot for local runs: its token reaches the functions through a local Secrets Manager
   * stand-in, as on AWS. Without it the webhook route is not served and Telegram deliveries are recorded
   * as not configured.
   */
  telegram?: { botToken: string; webhookSecret: string };
  /**
   * Without a real bot: a loopback Telegram Bot API fake (infra/local/telegram-fake.ts) that grammy reaches
   * through TELEGRAM_API_ROOT, with a page of the messages the bot sent and a form that sends `/start <code>`
   * to the webhook as a Telegram user would.
   */
  telegramFake?: boolean;
  /** Console lines: alerts raised and delivered, failures. */
  log?: (line: string) => void;
  verbose?: boolean;
}

export interface LocalRuntime {
  emulators: Emulators;
  apiUrl: string;
  /** Where Telegram posts updates; null when Telegram is off. */
  telegramWebhookUrl: string | null;
  /** The Telegram fake (its page is at its url), when it runs. */
  telegramFake: { url: string; fake: FakeTelegram } | null;
  /**
   * The SMS fake (infra/local/sms-fake.ts; no emulator of End User Messaging SMS exists): the real SMS client
   * reaches it through AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2; its page lists the SMS sent and replies from a phone.
   */
  smsFake: { url: string; fake: FakeSms };
  /** The demo webhook receiver: the demo client's endpoint, and a page of the alerts it received. */
  webhookReceiverUrl: string;
  demo: DemoData;
  fleet: SimulatedVehicle[];
  simulator: RunningSimulator | undefined;
  stop(): Promise<void>;
}

/**
 * The Lambda entry points, imported only when the runtime starts: modules read the environment when they load
 * (logger level, table names), so the environment has to be set first.
 */
const HANDLER_MODULES = {
  evaluate: async (): Promise<SqsHandler> => (await import('../../functions/evaluate/handler')).handler,
  deliver: async (): Promise<SqsHandler> => (await import('../../functions/deliver/handler')).handler,
  smsEvents: async (): Promise<SnsHandler> => (await import('../../functions/deliver/handler')).handler,
  sweep: async (): Promise<ScheduledHandler> => (await import('../../functions/sweep/handler')).handler,
  api: async (): Promise<HttpHandler> => (await import('../../functions/api/handler')).handler,
  telegram: async (): Promise<HttpHandler> => (await import('../../functions/telegram/handler')).handler,
} satisfies { [Name in keyof LocalHandlers]-?: () => Promise<NonNullable<LocalHandlers[Name]>> };

export async function loadHandlers(names: ReadonlyArray<keyof LocalHandlers>): Promise<Partial<LocalHandlers>> {
  const handlers: Partial<LocalHandlers> = {};
  for (const name of names) Object.assign(handlers, { [name]: await HANDLER_MODULES[name]() });
  return handlers;
}

function scheduledEvent(now: number): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: localAwsConfig().AWS_REGION,
    resources: ['arn:aws:events:us-east-1:000000000000:rule/fleetwatch-sweep'],
    detail: {},
  };
}

async function readAlerts(requested: readonly string[]): Promise<Alert[]> {
  // a batch may carry one alert's request twice (a redelivery), and BatchGetItem refuses duplicate keys
  const alertIds = [...new Set(requested)];
  if (alertIds.length === 0) return [];
  const { ALERTS_TABLE } = resourcesConfig();
  const alerts: Alert[] = [];
  for (let start = 0; start < alertIds.length; start += 100) {
    const { Responses } = await documentClient().send(
      new BatchGetCommand({ RequestItems: { [ALERTS_TABLE]: { Keys: alertIds.slice(start, start + 100).map((alertId) => ({ alertId })) } } }),
    );
    for (const item of Responses?.[ALERTS_TABLE] ?? []) {
      const parsed = alertSchema.safeParse(item);
      if (parsed.success) alerts.push(parsed.data);
    }
  }
  return alerts;
}

function alertIdsOf(event: SQSEvent): string[] {
  const ids: string[] = [];
  for (const record of event.Records) {
    try {
      const body = JSON.parse(record.body) as { alertId?: unknown };
      if (typeof body.alertId === 'string') ids.push(body.alertId);
    } catch {
      // a malformed delivery request is the deliver function's to reject
    }
  }
  return ids;
}

function clock(): string {
  return new Date().toISOString().slice(11, 19);
}

export function describeAlert(alert: Alert, vehicleName: string): string {
  const values = alert.event.values;
  const detail = [
    alert.event.speed !== null ? `${alert.event.speed} km/h` : undefined,
    typeof values.zoneName === 'string' ? `zone ${values.zoneName}` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  return `${alert.event.kind} · ${vehicleName} · rule ${alert.ruleId} "${alert.ruleName}"${detail ? ` · ${detail}` : ''} · at ${alert.event.time}`;
}

export function describeDeliveries(alert: Alert): string {
  const entries = Object.entries(alert.deliveries);
  if (entries.length === 0) return 'no recipients';
  return entries.map(([target, status]) => `${target} ${status.status}${status.error ? ` (${status.error})` : ''}`).join(', ');
}

/**
 * Wraps the deliver handler so that the console shows one line per alert raised and one per alert
 * settled, read back from the alerts table around the real handler. Only what this invocation did is told:
 * an alert that was already settled before it ran (a delivery request received again, e.g. after a restart)
 * gets no line, so the console never reports a send that did not happen now. With `pageOf`, the first alert's
 * line is followed by a PAGE line with the address of that alert's page.
 */
export function narrateDeliveries(
  deliver: SqsHandler,
  names: ReadonlyMap<number, string>,
  log: (line: string) => void,
  pageOf?: (alert: Alert) => Promise<string>,
): SqsHandler {
  const announced = new Set<string>();
  const settled = new Set<string>();
  const nameOf = (vehicleId: number) => names.get(vehicleId) ?? `vehicle ${vehicleId}`;
  return async (event, context) => {
    const ids = alertIdsOf(event);
    const pendingBefore = new Set<string>();
    try {
      for (const alert of await readAlerts(ids.filter((id) => !settled.has(id)))) {
        if (alert.status !== 'pending') continue;
        pendingBefore.add(alert.alertId);
        if (announced.has(alert.alertId)) continue;
        const first = announced.size === 0;
        announced.add(alert.alertId);
        log(`${clock()}  ALERT      ${describeAlert(alert, nameOf(alert.vehicleId))}`);
        if (first && pageOf) log(`${clock()}  PAGE       ${await pageOf(alert)}  (the first alert's page, as its e-mail links it)`);
      }
    } catch (error) {
      log(`${clock()}  (could not read alerts for the console: ${(error as Error).message})`);
    }
    const result = await deliver(event, context);
    try {
      for (const alert of await readAlerts(ids.filter((id) => pendingBefore.has(id)))) {
        if (alert.status === 'pending') continue;
        settled.add(alert.alertId);
        const label = alert.status === 'delivered' ? 'DELIVERED ' : 'FAILED    ';
        log(`${clock()}  ${label} ${alert.event.kind} · ${nameOf(alert.vehicleId)} → ${describeDeliveries(alert)}`);
      }
    } catch (error) {
      log(`${clock()}  (could not read alerts for the console: ${(error as Error).message})`);
    }
    return result;
  };
}

/**
 * The page of an alert (shared/api/routes/alert-links.ts), signed for the demo user as the link of an e-mail to that
 * user would be: it shows the alert and offers every action (acknowledge, close, mute). For the console only.
 */
async function demoAlertPage(alert: Alert, demo: DemoData): Promise<string> {
  const sentTo = `email:${DEMO.email}`;
  return alertPageLink(await signAlertLink({ alertId: alert.alertId, sentTo, userId: demo.userId, language: 2 }, Date.now()));
}

function startSchedule(run: () => Promise<void>, intervalMs: number): { stop: () => Promise<void> } {
  let current: Promise<void> | undefined;
  const tick = () => {
    // one run at a time: a tick that finds the previous run still busy is skipped
    if (current) return;
    current = run().finally(() => {
      current = undefined;
    });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await current;
    },
  };
}

/** Logs each message that lands in a dead-letter queue, with its reason, without taking it off the queue. */
function watchDeadLetters(emulators: Emulators, log: (line: string) => void, intervalMs = 1000): { stop: () => Promise<void> } {
  const seen = new Set<string>();
  const queues = [
    { label: 'input', url: emulators.queues.inputDlq },
    { label: 'deliveries', url: emulators.queues.deliveriesDlq },
  ];
  const check = () => {
    for (const queue of queues) {
      const state = emulators.sqs.inspectQueue(queue.url.split('/').pop() ?? '');
      if (!state) continue;
      const messages = [...state.messages.ready, ...state.messages.delayed, ...state.messages.inflight.map((entry) => entry.message)];
      for (const message of messages) {
        if (seen.has(message.messageId)) continue;
        seen.add(message.messageId);
        const reason = message.messageAttributes.reason?.StringValue ?? 'no reason given (retries exhausted)';
        log(`${clock()}  DLQ        ${queue.label} message ${message.messageId}: ${reason}`);
      }
    }
  };
  const timer = setInterval(check, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      check();
    },
  };
}

/** What the running subsystems need to stop: stopped in the reverse order of their start, each failure reported. */
class Stoppers {
  private readonly stops: Array<() => Promise<void>> = [];
  constructor(private readonly report: (error: unknown) => void) {}

  add(stop: () => Promise<void>): void {
    this.stops.push(stop);
  }

  async stopAll(): Promise<void> {
    for (const stop of this.stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        this.report(error);
      }
    }
  }
}

type Report = (what: string) => (error: unknown) => void;
type TelegramCredentials = NonNullable<LocalRuntimeOptions['telegram']>;

/** The Telegram Bot API fake, when asked for without a real bot: the functions reach it through TELEGRAM_API_ROOT. */
async function startTelegramFake(options: LocalRuntimeOptions, stoppers: Stoppers) {
  if (options.telegram || options.telegramFake !== true) return { telegram: options.telegram, telegramFake: null };
  const fake = new FakeTelegram();
  const url = await fake.start(options.ports?.telegramFake ?? 0);
  stoppers.add(() => fake.stop());
  exportToFunctions({ TELEGRAM_API_ROOT: url });
  // the token only has to have Telegram's shape: the fake accepts any
  const telegram: TelegramCredentials = { botToken: '1000:local-fake-token', webhookSecret: randomUUID() };
  return { telegram, telegramFake: { url, fake } };
}

/** The SMS fake, and SMS switched on for the functions, to the fake only. */
async function startSmsFake(options: LocalRuntimeOptions, stoppers: Stoppers) {
  const fake = new FakeSms();
  const url = await fake.start(options.ports?.smsFake ?? 0);
  stoppers.add(() => fake.stop());
  // the countries of the demo's languages unless the environment names others
  exportToFunctions({
    AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2: url,
    SMS_COUNTRIES: process.env.SMS_COUNTRIES ?? 'AZ,RU,GB',
    SMS_ORIGINATION_IDENTITY: 'local-fake-pool',
    SMS_CONFIGURATION_SET: 'local-fake',
  });
  return { fake, url };
}

/** The Secrets Manager stand-in with the keys the stack would generate, and the Telegram credentials if any. */
async function startSecrets(telegram: TelegramCredentials | undefined, stoppers: Stoppers): Promise<void> {
  const secrets = await startSecretsEmulator({
    [LOCAL_HISTORY_TOKEN_SECRET]: randomBytes(32).toString('base64url'),
    [LOCAL_ALERT_LINK_SECRET]: randomBytes(32).toString('base64url'),
    ...(telegram ? { [LOCAL_TELEGRAM_SECRET]: JSON.stringify(telegram) } : {}),
  });
  stoppers.add(() => secrets.stop());
  exportToFunctions({
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    HISTORY_TOKEN_SECRET_ID: LOCAL_HISTORY_TOKEN_SECRET,
    ALERT_LINK_SECRET_ID: LOCAL_ALERT_LINK_SECRET,
  });
  if (telegram) exportToFunctions({ TELEGRAM_SECRET_ID: LOCAL_TELEGRAM_SECRET });
}

/** The demo: its data, and the receiver of its webhook, which checks each alert's signature. */
async function startDemo(options: LocalRuntimeOptions, log: (line: string) => void, stoppers: Stoppers) {
  const fleet = options.fleet ?? demoFleet();
  const demo = await seedDemoData(fleet);
  const webhookReceiver = await startWebhookReceiver({
    port: options.ports?.webhook ?? 0,
    onAlert: (received) =>
      log(
        `${clock()}  WEBHOOK    ${received.payload.event.kind} · ${received.payload.vehicle.name} → demo receiver (signature checked) ${received.alertId}`,
      ),
  });
  stoppers.add(() => webhookReceiver.stop());
  webhookReceiver.secret = (await seedDemoWebhook(demo.agentId, webhookReceiver.url)).secret;
  log(`${clock()}  Demo webhook receiver: ${webhookReceiver.url} (alerts of the demo rules, signatures checked)`);
  return { fleet, demo, webhookReceiverUrl: webhookReceiver.url };
}

/** The functions' handlers: those the options replace, and the real ones for the rest. */
async function functionHandlers(options: LocalRuntimeOptions, withTelegram: boolean): Promise<Partial<LocalHandlers>> {
  const functionNames = withTelegram
    ? (['evaluate', 'deliver', 'smsEvents', 'sweep', 'api', 'telegram'] as const)
    : (['evaluate', 'deliver', 'smsEvents', 'sweep', 'api'] as const);
  const replaced = (name: keyof LocalHandlers) => options.handlers?.[name] !== undefined || (name === 'smsEvents' && options.handlers?.deliver);
  const wanted = functionNames.filter((name) => !replaced(name));
  const handlers: Partial<LocalHandlers> = { ...(await loadHandlers(wanted)), ...options.handlers };
  if (!withTelegram) delete handlers.telegram;
  return handlers;
}

/** Plays the input queue's event source mapping for evaluate. */
function startEvaluatePoller(handler: SqsHandler, emulators: Emulators, options: LocalRuntimeOptions, report: Report, stoppers: Stoppers): void {
  const poller = startPolling({
    queueUrl: emulators.queues.input,
    handler,
    functionName: 'fleetwatch-evaluate',
    concurrency: options.evaluateConcurrency ?? 4,
    onError: report('evaluate'),
  });
  stoppers.add(() => poller.stop());
}

/**
 * Plays the deliveries queue's event source mapping for deliver, narrated on the console, and the SMS
 * configuration set's event destination: the fake's delivery events, through SNS, to the deliver function.
 */
function startDeliverPoller(
  handlers: Partial<LocalHandlers>,
  context: { emulators: Emulators; sms: FakeSms; names: Map<number, string>; demo: DemoData; log: (line: string) => void },
  report: Report,
  stoppers: Stoppers,
): void {
  const { emulators, sms, names, demo, log } = context;
  if (!handlers.deliver) return;
  let deliverHandler = narrateDeliveries(handlers.deliver, names, log, (alert) => demoAlertPage(alert, demo));
  if (handlers.smsEvents) {
    const receipts = startSmsReceipts(handlers.smsEvents, report('SMS delivery event'));
    sms.onEvent = (message) => receipts.publish(message);
    stoppers.add(async () => {
      sms.onEvent = undefined;
      await receipts.stop();
    });
    deliverHandler = receipts.around(deliverHandler);
  }
  const poller = startPolling({
    queueUrl: emulators.queues.deliveries,
    handler: deliverHandler,
    functionName: 'fleetwatch-deliver',
    onError: report('deliver'),
  });
  stoppers.add(() => poller.stop());
}

/** Plays the EventBridge schedule of the sweep. */
function startSweepSchedule(sweep: ScheduledHandler, options: LocalRuntimeOptions, report: Report, stoppers: Stoppers): void {
  const schedule = startSchedule(async () => {
    try {
      const context = lambdaContext('fleetwatch-sweep');
      await invoke(context, () => sweep(scheduledEvent(Date.now()), context));
    } catch (error) {
      report('sweep')(error);
    }
  }, options.sweepIntervalMs ?? 60_000);
  stoppers.add(() => schedule.stop());
}

/** Plays API Gateway: the API and the Telegram webhook on one local HTTP server, whose URL the links use. */
async function startHttp(handlers: Partial<LocalHandlers>, options: LocalRuntimeOptions, report: Report, stoppers: Stoppers) {
  const routes: HttpRoute[] = [];
  if (handlers.api) routes.push({ routeKey: 'ANY /api/v3/{proxy+}', path: '/api/v3/*', functionName: 'fleetwatch-api', handler: handlers.api });
  if (handlers.telegram) {
    routes.push({
      routeKey: 'POST /telegram/webhook',
      path: '/telegram/webhook',
      method: 'POST',
      functionName: 'fleetwatch-telegram',
      handler: handlers.telegram,
    });
  }
  const http: RunningHttpServer = await startHttpServer({ routes, port: options.ports?.api ?? 0, onError: report('HTTP request') });
  stoppers.add(() => http.stop());
  // the links in e-mails lead to this server, wherever its port is (unless PUBLIC_API_URL says otherwise)
  if (process.env.PUBLIC_API_URL === undefined) {
    exportToFunctions({ PUBLIC_API_URL: apiUrlOf(http.url) });
    stoppers.add(async () => exportToFunctions({ PUBLIC_API_URL: undefined }));
  }
  return http;
}

/** The fleet simulator, and the demo dispatcher who acknowledges what escalates, when the API runs. */
function startSimulation(
  context: { emulators: Emulators; fleet: SimulatedVehicle[]; apiUrl: string | null; log: (line: string) => void },
  options: LocalRuntimeOptions,
  report: Report,
  stoppers: Stoppers,
): RunningSimulator | undefined {
  if (options.simulator === false) return undefined;
  const { emulators, fleet, apiUrl, log } = context;
  const simulator = startSimulator({ queueUrl: emulators.queues.input, fleet, now: options.simulator?.now, onError: report('simulator') });
  stoppers.add(() => simulator.stop());
  if (apiUrl) {
    const dispatcher = startDemoDispatcher({
      apiUrl,
      onAcknowledged: (alertId) => log(`${clock()}  ACK        alert ${alertId} acknowledged by the demo dispatcher (escalated first)`),
      onError: report('demo dispatcher'),
    });
    stoppers.add(async () => dispatcher.stop());
  }
  return simulator;
}

/**
 * Starts the subsystems in order (emulators, fakes, secrets, projector, demo, the functions' event sources, HTTP,
 * simulator); a failure stops what had started.
 */
export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const log = options.log ?? ((line: string) => console.log(line));
  const report: Report = (what) => (error) => log(`${clock()}  ${what} failed: ${(error as Error).message ?? String(error)}`);
  const fakeTelegram = !options.telegram && options.telegramFake === true;
  applyLocalFunctionEnvironment(options.verbose ?? false, options.telegram !== undefined || fakeTelegram);

  const emulators = await startEmulators({
    dataDir: options.dataDir,
    dynamoEndpoint: options.dynamoEndpoint,
    dynamoPort: options.ports?.dynamo,
    sesPort: options.ports?.ses,
    sqsPort: options.ports?.sqs,
    prefix: options.prefix,
  });
  const stoppers = new Stoppers(report('stopping'));
  stoppers.add(() => emulators.stop());

  try {
    const { telegram, telegramFake } = await startTelegramFake(options, stoppers);
    const sms = await startSmsFake(options, stoppers);
    await startSecrets(telegram, stoppers);
    // plays the DynamoDB Streams event source of the project function: rule and zone changes reach vehicle items
    stoppers.add(await startLocalProjector(report('projector')));
    const { fleet, demo, webhookReceiverUrl } = await startDemo(options, log, stoppers);
    const names = new Map(fleet.map((vehicle) => [vehicle.vehicleId, vehicle.name]));

    const handlers = await functionHandlers(options, telegram !== undefined);
    stoppers.add(await useInvocationScopes());
    if (handlers.evaluate) startEvaluatePoller(handlers.evaluate, emulators, options, report, stoppers);
    startDeliverPoller(handlers, { emulators, sms: sms.fake, names, demo, log }, report, stoppers);
    // a code typed on the fake's page confirms the number, as the API's confirm route would
    sms.fake.onReply = (from, text) => confirmCodeReply(demo.agentId, from, text, Date.now());
    if (handlers.sweep) startSweepSchedule(handlers.sweep, options, report, stoppers);
    const deadLetters = watchDeadLetters(emulators, log);
    stoppers.add(() => deadLetters.stop());

    const http = await startHttp(handlers, options, report, stoppers);
    const apiUrl = apiUrlOf(http.url);
    const simulator = startSimulation({ emulators, fleet, apiUrl: handlers.api ? apiUrl : null, log }, options, report, stoppers);

    const telegramWebhookUrl = handlers.telegram ? telegramWebhookUrlOf(http.url) : null;
    if (telegramFake && telegramWebhookUrl && telegram) telegramFake.fake.webhook = { url: telegramWebhookUrl, secretToken: telegram.webhookSecret };
    return {
      emulators,
      apiUrl,
      telegramWebhookUrl,
      telegramFake,
      smsFake: { url: sms.url, fake: sms.fake },
      webhookReceiverUrl,
      demo,
      fleet,
      simulator,
      stop: () => stoppers.stopAll(),
    };
  } catch (error) {
    await stoppers.stopAll();
    throw error;
  }
}
