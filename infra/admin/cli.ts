import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { ConfigError } from '../../shared/config';
import { adminConfig, prepareAdminEnvironment, setAdminEnvironment } from './admin-config';
import { HelpRequested, USAGE, UsageError, runAdmin } from './commands';
import { GlobalOptionError, takeGlobalOptions } from './global-options';
import { stackEnvironment } from './stack-outputs';

/** `npm run admin -- [--stack <name>] [--region <region>] <command> [options]`: see USAGE. */
try {
  const { stack, region, argv } = takeGlobalOptions(process.argv.slice(2));
  prepareAdminEnvironment(region);
  if (stack && !argv.includes('--help') && !argv.includes('-h')) {
    setAdminEnvironment(await stackEnvironment(stack, new CloudFormationClient(region ? { region } : {})));
    adminConfig();
  }
  const created = await runAdmin(argv);
  process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
} catch (error) {
  if (error instanceof HelpRequested) {
    process.stdout.write(USAGE);
  } else if (error instanceof UsageError || error instanceof GlobalOptionError) {
    process.stderr.write(`error: ${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else if (error instanceof ConfigError) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
