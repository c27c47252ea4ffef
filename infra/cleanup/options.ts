import { parseArgs } from 'node:util';
import * as z from 'zod';
import { DEFAULT_STACK_NAME } from '../stack-facts';

/** What CloudFormation accepts as a stack name. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

export class CleanupUsageError extends Error {}

const argsSchema = z.object({
  stack: z.string().regex(STACK_NAME, 'a CloudFormation stack name').default(DEFAULT_STACK_NAME),
  region: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as eu-central-1')
    .optional(),
  profile: z.string().min(1, 'a profile name').optional(),
  yes: z.boolean().default(false),
  help: z.boolean().default(false),
});

export interface CleanupOptions {
  stack: string;
  region?: string;
  profile?: string;
  /** Remove; without it, list only. */
  yes: boolean;
}

export type CleanupCommand = { help: true } | { help: false; options: CleanupOptions };

function parseCommandLine(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        stack: { type: 'string' },
        region: { type: 'string' },
        profile: { type: 'string' },
        yes: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new CleanupUsageError((error as Error).message);
  }
}

export function parseCleanupArgs(argv: readonly string[]): CleanupCommand {
  const parsed = argsSchema.safeParse(parseCommandLine(argv));
  if (!parsed.success) {
    throw new CleanupUsageError(parsed.error.issues.map((issue) => `--${String(issue.path[0])}: ${issue.message}`).join('; '));
  }
  const { stack, region, profile, yes, help } = parsed.data;
  if (help) return { help: true };
  return { help: false, options: { stack, yes, ...(region ? { region } : {}), ...(profile ? { profile } : {}) } };
}
