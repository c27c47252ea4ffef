import { applyLocalDefaults } from './local-defaults';
import { HelpRequested, USAGE, UsageError, runAdmin } from './commands';

/** `npm run admin -- <command> [options]`: see USAGE. */
applyLocalDefaults();
try {
  const created = await runAdmin(process.argv.slice(2));
  process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
} catch (error) {
  if (error instanceof HelpRequested) {
    process.stdout.write(USAGE);
  } else if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
