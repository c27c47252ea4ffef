import { ConfigError } from '../../shared/config';
import { cdkJsonContext, CDK_JSON_PATH } from './cdk-json';
import {
  checkBootstrap,
  checkCredentials,
  checkGeocoding,
  checkLambdaConcurrency,
  checkSenderIdentity,
  checkSesAccount,
  checkTelegramSecret,
} from './checks';
import { checkSmsAccount, checkSmsIdentity } from './sms-checks';
import { preflightClients, type AwsTarget, type PreflightClients } from './clients';
import { USAGE } from './help';
import { parsePreflightArgs, PreflightUsageError, type PreflightOptions } from './options';
import { exitCodeOf, type Row } from './row';
import { renderTable } from './table';

/** Every check, in the table's order; only the bootstrap's fix needs the account the credentials reach. */
export async function runChecks(options: PreflightOptions, clients: PreflightClients): Promise<Row[]> {
  const target: AwsTarget = { ...(options.region ? { region: options.region } : {}), ...(options.profile ? { profile: options.profile } : {}) };
  const { row, identity } = await checkCredentials(clients.sts, target);
  const rest = await Promise.all([
    checkBootstrap(clients.cloudFormation, options.toolkitStackName, identity, target),
    checkSenderIdentity(clients.sesv2, options.sender, target),
    checkSesAccount(clients.sesv2, options.context.sesMaxSendRate, target),
    checkLambdaConcurrency(clients.lambda, options.context.apiReservedConcurrency, target),
    checkGeocoding(clients.geoPlaces, options.context.geocoding, identity),
    checkTelegramSecret(clients.secretsManager, options.stack, target),
    checkSmsIdentity(clients.sms, options.context, identity, target),
    checkSmsAccount(clients.sms, options.context, target),
  ]);
  return [row, ...rest];
}

export interface PreflightIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cdkJson?: URL | string;
}

/** `npm run preflight -- …`: the exit code is 1 when a check fails, 2 on a bad option or context value. */
export async function preflight(argv: readonly string[], io: PreflightIo): Promise<number> {
  try {
    const command = parsePreflightArgs(argv, cdkJsonContext(io.cdkJson ?? CDK_JSON_PATH));
    if (command.help) {
      io.stdout(USAGE);
      return 0;
    }
    const rows = await runChecks(command.options, preflightClients(command.options));
    io.stdout(renderTable(rows));
    return exitCodeOf(rows);
  } catch (error) {
    if (error instanceof PreflightUsageError) {
      io.stderr(`error: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.stderr(`error: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
