import { createApiHandler } from '../../shared/api/app';
import { checkFunctionConfig } from '../../shared/config';

/** API Gateway HTTP API (payload v2): authentication, notification rules, geozones, alert history. */
// a missing or malformed setting fails the cold start, naming the variable
checkFunctionConfig('api');

export const handler = createApiHandler();
