import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { errorText } from '../preflight/errors';
import { cleanupClients, type AwsTarget, type CleanupClients } from './clients';
import { findLeftovers } from './find';
import { USAGE } from './help';
import type { Leftover } from './kinds';
import { CleanupUsageError, parseCleanupArgs, type CleanupOptions } from './options';
import { plannedAction, removeLeftover, type Outcome } from './remove';
import { LEFT_ALONE_NOTE, lineFormatter, summary } from './report';
import { liveStackStatus } from './stack-status';

export interface CleanupIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

async function resolvedRegion(cloudFormation: CloudFormationClient): Promise<string | undefined> {
  try {
    return await cloudFormation.config.region();
  } catch {
    return undefined;
  }
}

/** The command that does what the dry run listed. */
function yesCommand({ stack, region, profile }: CleanupOptions, resolved: string): string {
  return `npm run cleanup -- --stack ${stack} --region ${region ?? resolved}${profile ? ` --profile ${profile}` : ''} --yes`;
}

function dryRun(options: CleanupOptions, region: string, leftovers: readonly Leftover[], io: CleanupIo): number {
  const line = lineFormatter(leftovers);
  io.stdout(`Dry run: what is left of stack ${options.stack} in ${region} (${leftovers.length}), and what --yes would do:\n`);
  for (const leftover of leftovers) io.stdout(line(leftover, plannedAction(leftover)));
  if (leftovers.some((leftover) => leftover.kind === undefined)) io.stdout(LEFT_ALONE_NOTE);
  io.stdout(`Nothing was removed. To remove them, which destroys their data for good, re-run with --yes:\n  ${yesCommand(options, region)}\n`);
  return 0;
}

async function removeAll(options: CleanupOptions, region: string, leftovers: readonly Leftover[], clients: CleanupClients, io: CleanupIo) {
  const line = lineFormatter(leftovers);
  io.stdout(`Removing what is left of stack ${options.stack} in ${region} (${leftovers.length}):\n`);
  const outcomes: Outcome[] = [];
  // one at a time, so each line is printed as its removal ends and the account's API limits are not tested
  for (const leftover of leftovers) {
    const outcome = await removeLeftover(clients, leftover);
    outcomes.push(outcome);
    io.stdout(line(leftover, outcome.detail));
  }
  if (outcomes.some((outcome) => outcome.status === 'left')) io.stdout(LEFT_ALONE_NOTE);
  io.stdout(summary(outcomes));
  if (!outcomes.some((outcome) => outcome.status === 'failed')) return 0;
  io.stderr('Some removals failed (see FAILED above); fix their cause and run the cleanup again.\n');
  return 1;
}

/** `npm run cleanup -- …`: 0 when done or a dry run, 1 when a lookup or a removal failed, 2 on a bad option or a live stack. */
export async function cleanup(
  argv: readonly string[],
  io: CleanupIo,
  clientsOf: (target: AwsTarget) => CleanupClients = cleanupClients,
): Promise<number> {
  let options: CleanupOptions;
  try {
    const command = parseCleanupArgs(argv);
    if (command.help) {
      io.stdout(USAGE);
      return 0;
    }
    options = command.options;
  } catch (error) {
    if (!(error instanceof CleanupUsageError)) throw error;
    io.stderr(`error: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  const clients = clientsOf(options);
  const region = await resolvedRegion(clients.cloudFormation);
  if (region === undefined) {
    io.stderr("error: no region: pass --region R, or set AWS_REGION or the profile's region\n");
    return 2;
  }
  const where = `stack ${options.stack} in ${region}`;
  try {
    const status = await liveStackStatus(clients.cloudFormation, options.stack);
    if (status !== undefined) {
      io.stderr(`refusing: ${where} still exists (${status}). Tear it down with npx cdk destroy first, then run the cleanup again.\n`);
      return 2;
    }
  } catch (error) {
    io.stderr(`error: cannot tell whether ${where} still exists: cloudformation:DescribeStacks failed: ${errorText(error)}\n`);
    return 1;
  }
  let leftovers: Leftover[];
  try {
    leftovers = await findLeftovers(clients, options.stack);
  } catch (error) {
    io.stderr(`error: cannot list what is left of ${where}: ${errorText(error)}\n`);
    return 1;
  }
  if (leftovers.length === 0) {
    io.stdout(`Nothing is left of ${where}.\n`);
    return 0;
  }
  return options.yes ? removeAll(options, region, leftovers, clients, io) : dryRun(options, region, leftovers, io);
}
