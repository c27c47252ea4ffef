import { parseArgs } from 'node:util';
import * as z from 'zod';
import { ConfigError, configProblems } from '../../shared/config';
import { contextSchema, type StackContext } from '../context';
import { DEPLOY_PARAMETERS } from '../constructs/deploy-parameters';

export const DEFAULT_TOOLKIT_STACK_NAME = 'CDKToolkit';

/** The SenderAddress parameter's own allowedPattern. */
const EMAIL = new RegExp(DEPLOY_PARAMETERS.SenderAddress.allowedPattern);
/** What CloudFormation accepts as a stack name. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

export class PreflightUsageError extends Error {}

const argsSchema = z.object({
  region: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as eu-central-1')
    .optional(),
  profile: z.string().min(1, 'a profile name').optional(),
  stack: z.string().regex(STACK_NAME, 'a CloudFormation stack name').optional(),
  sender: z.string().regex(EMAIL, 'an e-mail address (the SenderAddress parameter)').optional(),
  context: z.array(z.string()).default([]),
  'toolkit-stack-name': z.string().regex(STACK_NAME, 'a CloudFormation stack name').default(DEFAULT_TOOLKIT_STACK_NAME),
  help: z.boolean().default(false),
});

export interface PreflightOptions {
  region?: string;
  profile?: string;
  stack: string;
  sender?: string;
  toolkitStackName: string;
  context: StackContext;
}

export type PreflightCommand = { help: true } | { help: false; options: PreflightOptions };

function parseCommandLine(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        region: { type: 'string' },
        profile: { type: 'string' },
        stack: { type: 'string' },
        sender: { type: 'string' },
        context: { type: 'string', short: 'c', multiple: true },
        'toolkit-stack-name': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new PreflightUsageError((error as Error).message);
  }
}

/** `-c key=value` pairs as `cdk deploy` takes them: everything after the first `=` is the value. */
function contextPairs(pairs: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new PreflightUsageError(`-c takes key=value (got ${JSON.stringify(pair)})`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/**
 * The deployment's context as `cdk deploy` would see it: cdk.json's `context`, then the `-c` values over it, checked
 * by the stack's own schema; a bad value names its key and where it came from.
 */
export function deployContext(fromCdkJson: Readonly<Record<string, unknown>>, fromCommandLine: Readonly<Record<string, string>>): StackContext {
  const merged: Record<string, unknown> = { ...fromCdkJson, ...fromCommandLine };
  const input = Object.fromEntries(Object.keys(contextSchema.shape).map((key) => [key, merged[key]]));
  const parsed = contextSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const display = (key: string) => `${key in fromCommandLine ? '-c ' : 'cdk.json context '}${key}=${JSON.stringify(input[key])}`;
  throw new ConfigError(`invalid CDK context: ${configProblems(contextSchema, parsed.error, display).join('; ')}`);
}

export function parsePreflightArgs(argv: readonly string[], fromCdkJson: Readonly<Record<string, unknown>>): PreflightCommand {
  const parsed = argsSchema.safeParse(parseCommandLine(argv));
  if (!parsed.success) {
    throw new PreflightUsageError(parsed.error.issues.map((issue) => `--${String(issue.path[0])}: ${issue.message}`).join('; '));
  }
  const args = parsed.data;
  if (args.help) return { help: true };
  const context = deployContext(fromCdkJson, contextPairs(args.context));
  return {
    help: false,
    options: {
      ...(args.region ? { region: args.region } : {}),
      ...(args.profile ? { profile: args.profile } : {}),
      ...(args.sender ? { sender: args.sender } : {}),
      stack: args.stack ?? context.stackName,
      toolkitStackName: args['toolkit-stack-name'],
      context,
    },
  };
}
