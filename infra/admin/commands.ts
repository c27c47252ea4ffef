import { parseArgs } from 'node:util';
import { z } from 'zod';
import { guidSchema } from '../../shared/schemas/notification';
import { languageSchema } from '../../shared/schemas/directory';
import { formatIssues } from '../../shared/schemas/terminal-message';
import { registerTelegramWebhook } from '../../shared/channels/telegram/register-webhook';
import { DirectoryConflictError, createAgent, createUser, linkUsersToClients } from '../../shared/store/directory-store';
import { UnknownClientError, VehicleMoveRefusedError, registerVehicle } from '../../shared/store/vehicle-registry';
import { clearConfirmationStop, listConfirmationStops } from '../../shared/store/sender-guard';
import { importVehicles } from './import-vehicles';
import { PasswordInputError, passwordFrom } from './password';
import { redrive } from './redrive';

/**
 * The admin commands behind `npm run admin -- <command> [options]`. They work on the tables named by the
 * environment (RULES_TABLE, DIRECTORY_TABLE ...), on AWS with the usual credentials or locally through
 * AWS_ENDPOINT_URL_DYNAMODB. Each prints the created record as JSON; a password is never printed.
 */
export const USAGE = `Usage: npm run admin -- <command> [options]

  create-client  --name <name> [--full-name <text>] [--parent <agentId>]
  create-user    --client <agentId> --login <login> --email <address> [--password-stdin]
                 [--first-name <text>] [--last-name <text>] [--language 1|2|3] [--read-only] [--session-duration <minutes>]
                 (asks for the password without echoing it; --password-stdin reads it from standard input instead;
                 --password <password> works but leaves it in the shell history)
  create-vehicle --client <agentId> --id <vehicleId> --name <name> [--move]
                 (a vehicle of another client is moved only with --move; the answer names the rules that stop applying)
  import-vehicles --file <vehicles.json>
                 (the platform's vehicle records, as POST /api/v3/vehicles/find answers them; idempotent, reports moves)
  link-users     (once, after upgrading: lists users stored before POST /api/v3/users/find existed
                 under their client; idempotent)
  register-telegram-webhook --url <https://…/telegram/webhook>
                 (reads the bot token and webhook secret from the secret named by TELEGRAM_SECRET_ID)
  confirmation-stops [--clear <agentId>]
                 lists the clients whose confirmation e-mails to side addresses are stopped (too many bounces or
                 complaints in a day); --clear lets one client's confirmations go out again
  redrive input|deliveries [--max <n>]
                 moves dead letters back to their queue (queue URLs from INPUT_QUEUE_URL, INPUT_DLQ_URL,
                 DELIVERIES_QUEUE_URL, DELIVERIES_DLQ_URL; locally the npm start queues are found by name)
  --help         this text

Global options, anywhere on the line:
  --stack <name>   a deployed fleetwatch stack: its outputs name the tables, queues and Telegram secret
                   (CloudFormation DescribeStacks; needs cloudformation:DescribeStacks)
  --region <name>  the AWS region of the stack (otherwise AWS_REGION or your profile's)

Tables: RULES_TABLE, DIRECTORY_TABLE … (defaults fleetwatch-…), unless --stack is given. Against a local endpoint
(AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8000) the region and credentials default to local dummies.
`;

/** Asked for the usage text: printed on standard output, exit code 0. */
export class HelpRequested extends Error {}

export class UsageError extends Error {}

const clientArgs = z.object({
  name: z.string().trim().min(1).max(200),
  'full-name': z.string().max(500).optional(),
  parent: guidSchema.optional(),
});

const userArgs = z.object({
  client: guidSchema,
  login: z.string().trim().min(1).max(100),
  password: z.string().optional(),
  'password-stdin': z.boolean().optional(),
  email: z.email(),
  'first-name': z.string().max(200).optional(),
  'last-name': z.string().max(200).optional(),
  language: z.coerce.number().pipe(languageSchema).optional(),
  'read-only': z.boolean().optional(),
  'session-duration': z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .optional(),
});

const vehicleArgs = z.object({
  client: guidSchema,
  id: z.coerce.number().int().min(1).max(2_147_483_647),
  name: z.string().trim().min(1).max(200),
  move: z.boolean().optional(),
});

const importArgs = z.object({ file: z.string().min(1) });

const passwordArg = z.object({ password: z.string().min(8, 'use at least 8 characters').max(1_000) });

const webhookArgs = z.object({
  url: z.url({ protocol: /^https$/, error: 'the webhook URL must be https (the stack output TelegramWebhookUrl)' }),
});

const stopsArgs = z.strictObject({ clear: guidSchema.optional() });

const redriveArgs = z.object({
  max: z.coerce.number().int().min(1).optional(),
});

const optionNames = [
  'max',
  'clear',
  'url',
  'name',
  'full-name',
  'parent',
  'client',
  'login',
  'password',
  'email',
  'first-name',
  'last-name',
  'language',
  'session-duration',
  'id',
  'file',
];
const flagNames = ['read-only', 'move', 'help', 'password-stdin'];

function parse<T>(schema: z.ZodType<T>, values: unknown): T {
  const parsed = schema.safeParse(values);
  if (!parsed.success) throw new UsageError(formatIssues(parsed.error.issues));
  return parsed.data;
}

type Command = (values: Record<string, unknown>, target: string | undefined) => Promise<Record<string, unknown>>;

/** Each command: its options checked by its own schema, and what it prints. */
const COMMANDS: Record<string, Command> = {
  'create-client': async (values) => {
    const args = parse(clientArgs, values);
    const client = await createAgent({ name: args.name, fullName: args['full-name'], parentId: args.parent ?? null });
    return { agentId: client.agentId, name: client.name, parentId: client.parentId };
  },
  'create-user': async (values) => {
    const args = parse(userArgs, values);
    const { password } = parse(passwordArg, { password: await passwordFrom(args) });
    const user = await createUser({
      parentId: args.client,
      login: args.login,
      password,
      email: args.email,
      firstName: args['first-name'],
      lastName: args['last-name'],
      language: args.language,
      isReadOnly: args['read-only'],
      sessionDuration: args['session-duration'] ?? null,
    });
    return { id: user.id, login: user.login, email: user.email, parentId: user.parentId, isReadOnly: user.isReadOnly, language: user.language };
  },
  'create-vehicle': async (values) => {
    const args = parse(vehicleArgs, values);
    const registered = await registerVehicle({ vehicleId: args.id, name: args.name, parentId: args.client }, { allowMove: args.move });
    if (registered.outcome !== 'moved') return { ...registered.vehicle, outcome: registered.outcome };
    return {
      ...registered.vehicle,
      outcome: 'moved',
      movedFrom: registered.from,
      rulesNoLongerApplying: registered.rulesNoLongerApplying,
      note: registered.rulesNoLongerApplying.length
        ? `these rules of the previous client stop applying to vehicle ${args.id}: ${registered.rulesNoLongerApplying.map((rule) => `${rule.id} "${rule.name}"`).join(', ')}`
        : `no rule of the previous client watched vehicle ${args.id}`,
    };
  },
  'import-vehicles': async (values) => ({ ...(await importVehicles(parse(importArgs, values).file)) }),
  'link-users': async (values) => {
    parse(z.strictObject({}), values);
    return { linked: await linkUsersToClients() };
  },
  'register-telegram-webhook': async (values) => {
    const args = parse(webhookArgs, values);
    await registerTelegramWebhook(args.url);
    return { webhook: args.url, registered: true };
  },
  'confirmation-stops': async (values) => {
    const args = parse(stopsArgs, values);
    if (args.clear) return { clientId: args.clear, cleared: await clearConfirmationStop(args.clear, Date.now()) };
    return { stopped: await listConfirmationStops() };
  },
  redrive: async (values, target) => {
    if (target !== 'input' && target !== 'deliveries') throw new UsageError('redrive needs the queue: input or deliveries');
    return { ...(await redrive(target, parse(redriveArgs, values).max)) };
  },
};

/** The failures a command reports as a usage error: the operator's input, not a fault. */
const INPUT_ERRORS = [DirectoryConflictError, VehicleMoveRefusedError, UnknownClientError, PasswordInputError];

/** Runs one command; returns what it printed as an object (the CLI writes it as JSON). */
export async function runAdmin(argv: readonly string[]): Promise<Record<string, unknown>> {
  if (argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') throw new HelpRequested(USAGE);
  const [command, ...afterCommand] = argv;
  const target = command === 'redrive' ? afterCommand[0] : undefined;
  const rest = command === 'redrive' ? afterCommand.slice(1) : afterCommand;
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        ...Object.fromEntries(optionNames.map((name) => [name, { type: 'string' as const }])),
        ...Object.fromEntries(flagNames.map((name) => [name, { type: 'boolean' as const }])),
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const run = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) throw new UsageError(command ? `unknown command ${command}` : 'no command given');
  try {
    return await run(values, target);
  } catch (error) {
    if (INPUT_ERRORS.some((kind) => error instanceof kind)) throw new UsageError((error as Error).message);
    throw error;
  }
}
