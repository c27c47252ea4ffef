import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { observabilitySchema, readConfig } from '../config';

/**
 * The one structured logger of the process. Service name comes from POWERTOOLS_SERVICE_NAME
 * (default `fleetwatch`), level from POWERTOOLS_LOG_LEVEL. Handlers attach it with
 * `loggerContext()`; modules add correlation keys with `logger.appendKeys`.
 */
export const logger = new Logger({
  serviceName: readConfig(observabilitySchema()).POWERTOOLS_SERVICE_NAME,
});

/**
 * Attaches the Lambda context to the logger. Events are never logged, whatever POWERTOOLS_LOGGER_LOG_EVENT
 * says: login bodies carry passwords, webhook updates carry chat data, and queue bodies can be large.
 */
export const loggerContext = () => injectLambdaContext(logger, { logEvent: false });
