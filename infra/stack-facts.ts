import type { TableKey } from '../shared/store/tables';

/**
 * The facts of a deployed stack that more than one tool needs: the stack itself, the admin CLI, `npm run smoke`,
 * `npm run preflight`, `npm run cleanup` and the docs generator all read them from here, so they cannot drift apart.
 */

/** The path every API route starts with (the platform's public API v3). */
export const API_BASE_PATH = 'api/v3';
/** The path of the Telegram webhook, beside the API. */
export const TELEGRAM_WEBHOOK_PATH = 'telegram/webhook';

/**
 * The API's base URL from the origin that serves it (API Gateway's stage URL, or the local HTTP adapter's):
 * `https://abc.execute-api.eu-central-1.amazonaws.com/api/v3`, with no trailing slash. This is the `ApiUrl` output,
 * so a request is `$ApiUrl/auth/login`.
 */
export function apiUrlOf(origin: string): string {
  return `${origin}${origin.endsWith('/') ? '' : '/'}${API_BASE_PATH}`;
}

/** The Telegram webhook URL from the same origin (the `TelegramWebhookUrl` output). */
export function telegramWebhookUrlOf(origin: string): string {
  return `${origin}${origin.endsWith('/') ? '' : '/'}${TELEGRAM_WEBHOOK_PATH}`;
}

/**
 * The URL of one API route given the `ApiUrl` output: `route` is a path as the OpenAPI document writes it
 * (`/api/v3/auth/login`) or as the docs do (`/auth/login`). A trailing slash on `apiUrl` is forgiven.
 */
export function apiEndpoint(apiUrl: string, route: string): string {
  const base = apiUrl.replace(/\/+$/, '');
  const prefix = `/${API_BASE_PATH}`;
  const path = route.startsWith(`${prefix}/`) ? route.slice(prefix.length) : route.startsWith('/') ? route : `/${route}`;
  return `${base}${path}`;
}

/**
 * The stack's output keys. They are part of the deployed interface: `npm run admin -- --stack <name>`, `npm run
 * smoke -- --stack <name>` and operators' scripts read them with DescribeStacks, so a key, once deployed, is never
 * renamed. (None is exported: another stack importing one would pin it.)
 */
export const TABLE_OUTPUTS: Record<TableKey, string> = {
  rules: 'RulesTableName',
  vehicleState: 'VehicleStateTableName',
  alerts: 'AlertsTableName',
  directory: 'DirectoryTableName',
  geozones: 'GeozonesTableName',
  visits: 'VisitsTableName',
};

export const QUEUE_OUTPUTS = {
  input: 'InputQueueUrl',
  inputDeadLetters: 'InputDeadLetterQueueUrl',
  deliveries: 'DeliveriesQueueUrl',
  deliveryDeadLetters: 'DeliveriesDeadLetterQueueUrl',
} as const;

export const API_URL_OUTPUT = 'ApiUrl';
export const TELEGRAM_WEBHOOK_URL_OUTPUT = 'TelegramWebhookUrl';
export const TELEGRAM_SECRET_NAME_OUTPUT = 'TelegramSecretName';
export const DASHBOARD_NAME_OUTPUT = 'DashboardName';
export const ALARM_TOPIC_ARN_OUTPUT = 'AlarmTopicArn';

/** What each output holds, as the stack describes it and docs/deploy.md lists it. */
export const OUTPUT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  [API_URL_OUTPUT]: `Base URL of the fleetwatch API v3, ending in /${API_BASE_PATH}: a request appends its path, as in $ApiUrl/auth/login`,
  [QUEUE_OUTPUTS.input]: 'FIFO queue for terminal messages (MessageGroupId = vehicle id, body = terminal message JSON)',
  [QUEUE_OUTPUTS.inputDeadLetters]: 'Input DLQ (INPUT_DLQ_URL for `npm run admin -- redrive input`)',
  [QUEUE_OUTPUTS.deliveries]: 'Deliveries queue (DELIVERIES_QUEUE_URL for redrive)',
  [QUEUE_OUTPUTS.deliveryDeadLetters]: 'Deliveries DLQ (DELIVERIES_DLQ_URL for `npm run admin -- redrive deliveries`)',
  [TELEGRAM_WEBHOOK_URL_OUTPUT]: "Register with Telegram setWebhook, passing the secret's webhookSecret as secret_token",
  [TELEGRAM_SECRET_NAME_OUTPUT]:
    'Secrets Manager secret {"botToken","webhookSecret"}: put the BotFather token with `aws secretsmanager put-secret-value`, keeping the generated webhookSecret',
  [DASHBOARD_NAME_OUTPUT]: 'CloudWatch dashboard',
  [ALARM_TOPIC_ARN_OUTPUT]: 'SNS topic the alarms notify',
  ...Object.fromEntries(Object.entries(TABLE_OUTPUTS).map(([key, output]) => [output, `DynamoDB table: ${key}`])),
};

/** The name of the Telegram secret of a stack (known at synthesis; the ARN adds a random suffix). */
export function telegramSecretName(stackName: string): string {
  return `${stackName}/telegram`;
}

/** The stack's secrets, by the id the stack gives them, with what each holds. */
export const SECRETS = {
  Telegram: 'the Telegram bot: `{"botToken", "webhookSecret"}`, named `<stack name>/telegram`; you put the bot token into it',
  AlertLinkKey: 'the HMAC key of the signed alert links in e-mails and Telegram (generated; nobody needs to read it)',
  HistoryTokenKey: "the HMAC key of the history endpoint's page tokens (generated; nobody needs to read it)",
} as const;

/**
 * Every resource the stack creates carries this tag with the stack's name. After `cdk destroy`, `npm run cleanup`
 * finds what was retained by it (Resource Groups Tagging API), whatever its kind.
 */
export const STACK_TAG = 'fleetwatch:stack';

/** The default stack name (`-c stackName`). */
export const DEFAULT_STACK_NAME = 'Fleetwatch';

/** KMS's waiting period before a key the stack no longer holds is deleted (7, the shortest KMS allows). */
export const KEY_DELETION_WINDOW_DAYS = 7;

/**
 * What `cdk destroy` does to each kind of resource the stack builds, and what `npm run cleanup` does to what is
 * left. docs/deploy.md's teardown table is generated from this; a stack test checks that every resource the
 * template retains is of a kind listed here as retained and removed by the cleanup.
 */
export const TEARDOWN: readonly {
  what: string;
  /** The CloudFormation types this row covers; none for resources that are not the stack's. */
  types: readonly string[];
  retained: boolean;
  onDestroy: string;
  cleanup?: string;
}[] = [
  {
    what: 'the six tables',
    types: ['AWS::DynamoDB::Table'],
    retained: true,
    onDestroy: '**retained**, with point-in-time recovery and deletion protection on (billed for storage and backups)',
    cleanup: 'turns deletion protection off, then deletes each table',
  },
  {
    what: "the functions' log groups (1 month retention) and the API's access logs (3 months)",
    types: ['AWS::Logs::LogGroup'],
    retained: true,
    onDestroy: '**retained** (billed for what they store) until deleted; their events expire with the retention',
    cleanup: 'deletes them',
  },
  {
    what: 'the KMS keys of the alarm topic and of the SES events topic',
    types: ['AWS::KMS::Key'],
    retained: false,
    onDestroy: `scheduled for deletion after ${KEY_DELETION_WINDOW_DAYS} days (not billed meanwhile)`,
    cleanup: `schedules for deletion (${KEY_DELETION_WINDOW_DAYS} days) a key still enabled, as an installation from before this version retained the SES events key`,
  },
  {
    what: `the three secrets: ${Object.keys(SECRETS).join(', ')}`,
    types: ['AWS::SecretsManager::Secret'],
    retained: false,
    onDestroy: 'deleted at once (CloudFormation deletes secrets without a recovery window): keep the bot token elsewhere',
    cleanup: 'deletes any still there, without a recovery window',
  },
  {
    what: 'queues, functions, API, topics, alarms, dashboard, SES configuration set, roles',
    types: [],
    retained: false,
    onDestroy: 'deleted',
  },
  {
    what: 'SES identities, SNS platform applications, the CDK bootstrap stack',
    types: [],
    retained: false,
    onDestroy: 'yours, untouched',
  },
];
