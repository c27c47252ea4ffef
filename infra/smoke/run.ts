import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { Fetch } from './api-client';
import type { Clock } from './clock';
import { errorLine } from './failure';
import { USAGE } from './help';
import { parseSmokeArgs, SmokeUsageError, type ApiTarget } from './options';
import { loginPassword, PasswordInputError, type PasswordTerminal } from './password';
import { runSmoke } from './smoke';
import { apiUrlOfStack, cloudFormationClient, type AwsTarget } from './stack-url';

export interface SmokeIo extends PasswordTerminal {
  stdout: NodeJS.WritableStream;
}

export interface SmokeCommandDeps {
  fetch?: Fetch;
  clock?: Clock;
  cloudFormation?: (target: AwsTarget) => CloudFormationClient;
}

/** The ApiUrl to test; with --stack, from the stack's outputs, reported as a step of its own. */
async function apiUrlOf(target: ApiTarget, print: (line: string) => void, deps: SmokeCommandDeps): Promise<string | undefined> {
  if (target.kind === 'url') return target.url;
  try {
    const { stack, region, profile } = target;
    const aws: AwsTarget = { ...(region ? { region } : {}), ...(profile ? { profile } : {}) };
    const apiUrl = await apiUrlOfStack(stack, (deps.cloudFormation ?? cloudFormationClient)(aws));
    print(`ok   stack (${stack}: ${apiUrl})`);
    return apiUrl;
  } catch (error) {
    print(`FAIL stack: ${errorLine(error)}`);
    return undefined;
  }
}

/** `npm run smoke -- …`: 0 when every step passed, 1 at the first failed step, 2 on a bad option or no password. */
export async function smoke(argv: readonly string[], io: SmokeIo, deps: SmokeCommandDeps = {}): Promise<number> {
  const print = (line: string) => io.stdout.write(`${line}\n`);
  try {
    const command = parseSmokeArgs(argv);
    if (command.help) {
      io.stdout.write(USAGE);
      return 0;
    }
    const { target, login, passwordStdin, vehicleId } = command.options;
    const apiUrl = await apiUrlOf(target, print, deps);
    if (apiUrl === undefined) return 1;
    const password = await loginPassword(login, passwordStdin, io);
    const result = await runSmoke(
      { apiUrl, login, password, ...(vehicleId === undefined ? {} : { vehicleId }) },
      { print, ...(deps.fetch ? { fetch: deps.fetch } : {}), ...(deps.clock ? { clock: deps.clock } : {}) },
    );
    return result.exitCode;
  } catch (error) {
    if (error instanceof SmokeUsageError) {
      io.stderr.write(`error: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof PasswordInputError) {
      io.stderr.write(`error: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
