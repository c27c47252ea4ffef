import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one structured logger of the process. Service name comes from POWERTOOLS_SERVICE_NAME
 * (default `fleetwatch`), level from POWERTOOLS_LOG_LEVEL. Handlers attach it with
 * `injectLambdaContext(logger)`; modules add correlation keys with `logger.appendKeys`.
 */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'fleetwatch',
});
