import { writeSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lock } from 'proper-lockfile';
import { ConfigError } from '../../shared/config';
import { applyLocalFunctionEnvironment } from './function-environment';
import type { LocalRuntime } from './runtime';
import { DEMO, OPEN_ALERTS_QUERY } from './demo';
import { demoFleet, simulatedMessage } from './simulator';
import { UsageError, checkPorts, readSettings, type StartSettings } from './start-config';

/**
 * `npm start`: fleetwatch on this machine, with no AWS account. Options on the command line
 * (`npm start -- --help`), ports and switches also through FLEETWATCH_* environment variables.
 */

const USAGE = `Usage: npm start -- [options]

  --reset             wipe the local data (.local/) first               env FLEETWATCH_RESET=1
  --no-simulator      do not drive the demo fleet                       env FLEETWATCH_SIMULATOR=0
  --vehicles <n>      vehicles in the demo fleet, 1-100 (default 3)     env FLEETWATCH_VEHICLES
                      (the demo rules get the fleet when first seeded; --reset re-seeds)
  --telegram-fake     use the local Telegram fake even when a bot token is set
  --verbose           also show the functions' Powertools logs (JSON)   env FLEETWATCH_VERBOSE=1
                      and metrics; without it the console shows the summary, one line per
                      alert and per delivery outcome, and errors
                      local data lives in .local/ (env FLEETWATCH_DATA_DIR moves it); one
                      instance at a time may use a data folder
  --help              this text

Telegram: without a bot token, a local Telegram fake stands in for the Bot API (grammy reaches it
through TELEGRAM_API_ROOT). Its web page lists the messages the bot sent and sends "/start <code>"
to the local webhook as a Telegram user would. For a real bot:
  FLEETWATCH_TELEGRAM_BOT_TOKEN       bot token from @BotFather
  FLEETWATCH_TELEGRAM_WEBHOOK_SECRET  secret token for the webhook (needed to register one)
  TELEGRAM_BOT_USERNAME               the bot's username, for the link the API hands out

Ports (a busy port stops the start with a message naming the variable that moves it):
  FLEETWATCH_API_PORT            HTTP API and Telegram webhook  (default 3000)   127.0.0.1
  FLEETWATCH_SES_PORT            SES and its web inbox          (default 8005)   127.0.0.1
  FLEETWATCH_TELEGRAM_FAKE_PORT  Telegram fake and its page     (default 8081)   127.0.0.1
  FLEETWATCH_WEBHOOK_PORT        demo webhook receiver          (default: any)   127.0.0.1
  FLEETWATCH_DYNAMODB_PORT       DynamoDB (DynamoDB Local)      (default 8000)   ALL interfaces
  FLEETWATCH_SQS_PORT            SQS (fauxqs)                   (default 9324)   ALL interfaces
  FLEETWATCH_WEBHOOK_PORT=0 takes any free port.
  DynamoDB Local and fauxqs have no setting to listen on loopback only. On a shared network,
  firewall them, e.g.:  sudo iptables -I INPUT ! -i lo -p tcp -m multiport --dports 8000,9324 -j DROP

Switches take 1/true/yes/on or 0/false/no/off; an empty variable counts as unset. A malformed value
stops the start with a message naming the variable. Every variable: docs/configuration.md.
`;

const LOCK_NAME = 'instance.lock';

/**
 * Takes the local data folder for this process, so that a second `npm start` can neither share nor wipe it.
 * Returns the release function, or undefined when another live process holds the folder.
 */
export async function lockDataDir(dataDir: string): Promise<(() => Promise<void>) | undefined> {
  await mkdir(dataDir, { recursive: true });
  try {
    return await lock(dataDir, { lockfilePath: join(dataDir, LOCK_NAME), stale: 10_000, update: 2_000 });
  } catch (error) {
    if ((error as { code?: string }).code === 'ELOCKED') return undefined;
    throw error;
  }
}

/** Removes the emulators' data, keeping the folder and its lock. */
async function wipeLocalData(dataDir: string): Promise<void> {
  for (const entry of await readdir(dataDir)) {
    if (entry !== LOCK_NAME) await rm(join(dataDir, entry), { recursive: true, force: true });
  }
}

/** A copy-paste curl that sends one message of the first demo vehicle, at 130 km/h, stamped with the current time. */
function sendByHandCommand(runtime: LocalRuntime): string {
  const vehicle = runtime.fleet[0]!;
  const sample = simulatedMessage(vehicle, Date.now(), 0);
  const timePlaceholder = '@DEVICE_TIME@';
  const body = JSON.stringify({
    vehicleId: vehicle.vehicleId,
    deviceTime: timePlaceholder,
    latitude: sample.latitude,
    longitude: sample.longitude,
    speed: 130,
    course: sample.course,
    satellites: 11,
    parameters: { ignition: 1 },
  });
  const request = JSON.stringify({ QueueUrl: runtime.emulators.queues.input, MessageGroupId: String(vehicle.vehicleId), MessageBody: body });
  // the shell closes the single quotes around $(date ...) so that the time is the moment of sending
  const payload = `'${request.replace(timePlaceholder, `'$(date -u +%Y-%m-%dT%H:%M:%SZ)'`)}'`;
  return [
    `curl -s ${runtime.emulators.sqsEndpoint} -H 'X-Amz-Target: AmazonSQS.SendMessage' -H 'Content-Type: application/x-amz-json-1.0' \\`,
    `    -d ${payload}`,
  ].join('\n');
}

function telegramLines(runtime: LocalRuntime, settings: StartSettings): string[] {
  if (runtime.telegramFake) {
    return [
      `Telegram: local fake at ${runtime.telegramFake.url} (nothing reaches Telegram; set FLEETWATCH_TELEGRAM_BOT_TOKEN for a real bot).`,
      '  Its page lists what the bot sent and sends /start <code> as a user. Get a code (after logging in, below):',
      `  curl -s -X POST ${runtime.apiUrl}/telegram/link -H "X-Auth: $TOKEN"`,
      '',
    ];
  }
  if (!settings.telegram || !runtime.telegramWebhookUrl) {
    return ['Telegram: off. Set FLEETWATCH_TELEGRAM_BOT_TOKEN (from @BotFather) to send alerts to Telegram chats.', ''];
  }
  const lines = [`Telegram: on. Webhook ${runtime.telegramWebhookUrl}`];
  if (settings.telegram.webhookSecretGiven) {
    lines.push(
      '  To link chats, expose that port publicly (e.g. a tunnel) and register the webhook:',
      '  curl "https://api.telegram.org/bot$FLEETWATCH_TELEGRAM_BOT_TOKEN/setWebhook" -d url=<public URL>/telegram/webhook -d "secret_token=$FLEETWATCH_TELEGRAM_WEBHOOK_SECRET"',
    );
  } else {
    lines.push('  The webhook secret was generated for this run; set FLEETWATCH_TELEGRAM_WEBHOOK_SECRET to register a webhook.');
  }
  return [...lines, ''];
}

function banner(runtime: LocalRuntime, settings: StartSettings, dataDir: string): string {
  const { emulators, apiUrl, demo } = runtime;
  const base = apiUrl;
  const handCommand = sendByHandCommand(runtime);
  const lines = [
    '',
    'fleetwatch is running locally — no AWS account involved.',
    '',
    `  Alert e-mails (SES web inbox)  ${emulators.sesEndpoint}`,
    `  HTTP API                       ${base}    login ${demo.login} / password ${demo.password} (local demo only)`,
    `  OpenAPI document               ${base}/openapi.json`,
    `  Input queue (SQS FIFO)         ${emulators.queues.input}`,
    `  DynamoDB (DynamoDB Local)      ${emulators.dynamoEndpoint}    data in ${dataDir} (npm start -- --reset wipes it)`,
    `  SQS (fauxqs)                   ${emulators.sqsEndpoint}    queues at ${emulators.sqsEndpoint}/_fauxqs/queues`,
    '  (DynamoDB Local and fauxqs listen on all interfaces, the rest on 127.0.0.1: npm start -- --help says how to firewall them)',
    '',
    settings.simulator
      ? `Simulator: ${runtime.fleet.length} vehicles send one message a second; ${runtime.fleet[0]!.name} goes over 90 km/h for ~20 s every 40 s,\nso the first speeding e-mail (to ops@fleetwatch.local) reaches the inbox within a minute.`
      : 'Simulator off (--no-simulator): send messages yourself, see below.',
    '',
    ...telegramLines(runtime, settings),
    `SMS: local fake at ${runtime.smsFake.url} (nothing reaches a phone: its page lists the SMS sent, reported delivered, and replies STOP or a code that confirms a number).`,
    'Log in and list the demo rules (requests on one session must be at least a second apart):',
    `  TOKEN=$(curl -s -X POST ${base}/auth/login -H 'content-type: application/json' -d '{"login":"${demo.login}","password":"${demo.password}"}' | sed -E 's/.*"AuthId":"([^"]+)".*/\\1/')`,
    `  curl -s -X POST ${base}/notifications/find -H "X-Auth: $TOKEN" -H 'content-type: application/json' -d '{"parentId":"${demo.agentId}"}'`,
    '',
    `Escalation: an alert of the speeding rule that nobody acknowledges goes up a two-level chain, each level once: after`,
    `${DEMO.escalateAfterMinutes} minute an e-mail "not acknowledged in ${DEMO.escalateAfterMinutes} min" to ${DEMO.dutyEmail}; after ${DEMO.rotaAfterMinutes} minutes to whoever of the`,
    `rota "${DEMO.rotaName}" (${DEMO.login} and ${DEMO.dispatcherLogin}, handing over at 08:00 Baku time) is on call. Who is on call now:`,
    `  curl -s "${base}/rotas/${demo.rotaId}/oncall" -H "X-Auth: $TOKEN"`,
    'The history lists each level fired (escalations) and whom a rota level reached. Acknowledging stops the levels not yet fired;',
    'acknowledge the newest open alert:',
    `  ALERT=$(curl -s -X POST ${base}/notifications/history -H "X-Auth: $TOKEN" -H 'content-type: application/json' -d '${JSON.stringify(OPEN_ALERTS_QUERY)}' | sed -E 's/.*"alertId":"([^"]+)".*/\\1/')`,
    `  curl -s -X POST ${base}/notifications/history/$ALERT/acknowledge -H "X-Auth: $TOKEN" -H 'content-type: application/json' -d '{"comment":"on it"}'`,
    '  (the history then shows it "acknowledged", by demo through the API, and it is never escalated)',
    ...(settings.simulator
      ? [
          'With the simulator on, the demo dispatcher acknowledges the first escalated alert through the API (an ACK line below),',
          'so the history shows one alert escalated, then acknowledged.',
        ]
      : []),
    '',
    "Alert pages: every alert e-mail links its alert's page (what happened, when and where, the vehicle's last position, who was",
    'notified, the escalation, the state and its changes) with buttons to acknowledge with a comment, close and mute; open it in a',
    "browser. The first alert raised below is followed by a PAGE line: that alert's page, signed for the demo user (valid 7 days).",
    '',
    'Send a terminal message by hand (plain curl to the local SQS; deviceTime is taken from your clock):',
    `  ${handCommand}`,
    settings.simulator
      ? '  (the simulator drives this vehicle too; with --no-simulator, such messages 10 s apart raise a speeding alert)'
      : '  (send it twice, 10 s apart, and the speeding rule raises an alert; a malformed body goes to the DLQ)',
    '',
    'Alerts raised and delivered are listed below. Ctrl-C stops everything.',
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const settings = readSettings(process.argv.slice(2));
  if (settings.help) {
    console.log(USAGE);
    return;
  }
  const { dataDir } = settings;
  const problems = await checkPorts(settings.ports, settings.telegramFake);
  if (problems.length > 0) {
    console.error(`fleetwatch cannot start:\n  ${problems.join('\n  ')}`);
    process.exitCode = 1;
    return;
  }
  const release = await lockDataDir(dataDir);
  if (!release) {
    console.error(`fleetwatch cannot start: another \`npm start\` is using ${dataDir}. Stop it first (Ctrl-C in its terminal).`);
    process.exitCode = 1;
    return;
  }
  // until the runtime is up there is nothing to flush: a signal exits at once, and the exit handlers of what
  // has started so far (DynamoDB Local runs in its own process group) stop it on the way out
  let aborting = false;
  const abortStart = (signal: string) => {
    if (aborting) return;
    aborting = true;
    writeSync(1, `\n${signal} while starting: stopped.\n`);
    void release().finally(() => process.exit(130));
  };
  process.on('SIGINT', abortStart);
  process.on('SIGTERM', abortStart);
  if (settings.reset) {
    await wipeLocalData(dataDir);
    console.log(`Local data wiped (${dataDir}).`);
  }

  // before the runtime (and, through it, the functions' logger) loads: Powertools reads its level once
  applyLocalFunctionEnvironment(settings.verbose, true);
  const { startLocalRuntime } = await import('./runtime');
  const runtime = await startLocalRuntime({
    dataDir,
    ports: settings.ports,
    fleet: demoFleet(settings.vehicles),
    simulator: settings.simulator ? {} : false,
    verbose: settings.verbose,
    telegramFake: settings.telegramFake,
    telegram: settings.telegram ? { botToken: settings.telegram.botToken, webhookSecret: settings.telegram.webhookSecret } : undefined,
  });
  if (runtime.demo.created.length > 0) console.log(`Seeded demo data: ${runtime.demo.created.join(', ')}.`);
  console.log(banner(runtime, settings, dataDir));

  // npm and tsx pass Ctrl-C on to this process besides the terminal's own signal, so one key press can arrive
  // two or three times at once: only a signal a moment after the first forces the exit
  let stoppingSince: number | undefined;
  const shutdown = (signal: string) => {
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince < 1000) return;
      console.log('Stopping now.');
      process.exit(1);
    }
    stoppingSince = Date.now();
    console.log(`\n${signal}: stopping (Ctrl-C again to force)…`);
    runtime.stop().then(
      async () => {
        await release();
        console.log('Stopped.');
        process.exit(0);
      },
      (error: unknown) => {
        console.error('Stopping failed:', error);
        process.exit(1);
      },
    );
  };
  process.off('SIGINT', abortStart);
  process.off('SIGTERM', abortStart);
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
    } else if (error instanceof ConfigError) {
      console.error(`fleetwatch cannot start: ${error.message}`);
    } else {
      console.error('fleetwatch could not start:', error);
    }
    process.exit(1);
  });
}
