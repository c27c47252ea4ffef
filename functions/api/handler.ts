import { createApiHandler } from '../../shared/api/app';

/** API Gateway HTTP API (payload v2): authentication, notification rules, geozones, alert history. */
export const handler = createApiHandler();
