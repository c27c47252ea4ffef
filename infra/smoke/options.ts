import { parseArgs } from 'node:util';
import * as z from 'zod';

export class SmokeUsageError extends Error {}

/** What CloudFormation accepts as a stack name. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;
const MAX_VEHICLE_ID = 2_147_483_647;

const argsSchema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'the ApiUrl output, an http(s) URL ending in /api/v3' }).optional(),
    stack: z.string().regex(STACK_NAME, 'a CloudFormation stack name').optional(),
    region: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as eu-central-1')
      .optional(),
    profile: z.string().min(1, 'a profile name').optional(),
    login: z.string({ error: 'required: the user to log in as' }).trim().min(1, 'required: the user to log in as'),
    'password-stdin': z.boolean().default(false),
    vehicle: z
      .string()
      .regex(/^\d+$/, 'a vehicle id (a whole number)')
      .transform(Number)
      .pipe(z.number().int().min(1, 'a vehicle id from 1').max(MAX_VEHICLE_ID, `a vehicle id up to ${MAX_VEHICLE_ID}`))
      .optional(),
  })
  .superRefine((args, context) => {
    if (args.url === undefined && args.stack === undefined) {
      context.addIssue({ code: 'custom', path: [], message: 'give --url <ApiUrl> or --stack <name>' });
    }
    if (args.url !== undefined && args.stack !== undefined) {
      context.addIssue({ code: 'custom', path: [], message: 'give --url or --stack, not both' });
    }
    for (const key of ['region', 'profile'] as const) {
      if (args[key] !== undefined && args.stack === undefined) context.addIssue({ code: 'custom', path: [key], message: 'goes with --stack only' });
    }
  });

export type ApiTarget = { kind: 'url'; url: string } | { kind: 'stack'; stack: string; region?: string; profile?: string };

export interface SmokeCommandOptions {
  target: ApiTarget;
  login: string;
  passwordStdin: boolean;
  vehicleId?: number;
}

export type SmokeCommand = { help: true } | { help: false; options: SmokeCommandOptions };

function parseCommandLine(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        url: { type: 'string' },
        stack: { type: 'string' },
        region: { type: 'string' },
        profile: { type: 'string' },
        login: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        vehicle: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new SmokeUsageError((error as Error).message);
  }
}

export function parseSmokeArgs(argv: readonly string[]): SmokeCommand {
  const { help, ...values } = parseCommandLine(argv);
  if (help) return { help: true };
  const parsed = argsSchema.safeParse(values);
  if (!parsed.success) {
    throw new SmokeUsageError(
      parsed.error.issues.map((issue) => (issue.path.length > 0 ? `--${String(issue.path[0])}: ` : '') + issue.message).join('; '),
    );
  }
  const args = parsed.data;
  const target: ApiTarget =
    args.stack !== undefined
      ? { kind: 'stack', stack: args.stack, ...(args.region ? { region: args.region } : {}), ...(args.profile ? { profile: args.profile } : {}) }
      : { kind: 'url', url: args.url! };
  return {
    help: false,
    options: { target, login: args.login, passwordStdin: args['password-stdin'], ...(args.vehicle === undefined ? {} : { vehicleId: args.vehicle }) },
  };
}
