import { exportToFunctions } from './start-config';

/**
 * The functions' environment for local runs. Kept apart from the runtime, which imports the stores: Powertools
 * reads its settings (log level above all) once, when the logger module loads, so `npm start` applies these
 * before it loads anything else.
 */

/** Settings the deployed stack gives every function, with local values; variables already set win. */
export function localFunctionEnvironment(verbose: boolean, telegram: boolean): Record<string, string> {
  return {
    POWERTOOLS_SERVICE_NAME: 'fleetwatch',
    POWERTOOLS_METRICS_NAMESPACE: 'fleetwatch',
    // the console stays readable: without --verbose Powertools logs errors only (its warnings included), and
    // EMF metric lines are not printed
    POWERTOOLS_LOG_LEVEL: verbose ? 'INFO' : 'ERROR',
    POWERTOOLS_METRICS_DISABLED: verbose ? 'false' : 'true',
    SES_FROM_ADDRESS: 'alerts@fleetwatch.local',
    // the demo webhook receiver listens on loopback over plain HTTP; the deployed stack never allows this
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // without a bot the API says so instead of handing out links to a bot that does not exist
    ...(telegram ? { TELEGRAM_BOT_USERNAME: 'fleetwatch_local_bot' } : {}),
  };
}

/** Sets the local function environment; variables already set win. */
export function applyLocalFunctionEnvironment(verbose: boolean, telegram: boolean): void {
  exportToFunctions(localFunctionEnvironment(verbose, telegram), { keep: true });
}
