import type { ApiRoute } from '../route';
import { agentRoutes } from './agents';
import { alertLifecycleRoutes } from './alert-lifecycle';
import { alertLinkRoutes } from './alert-links';
import { alertMuteLinkRoutes } from './alert-mute-links';
import { authRoutes } from './auth';
import { channelRoutes } from './channels';
import { emailRoutes } from './email';
import { geozoneRoutes } from './geozones';
import { historyRoutes } from './history';
import { intersectionRoutes } from './intersections';
import { notificationPreviewRoutes } from './notification-preview';
import { notificationTestRoutes } from './notification-test';
import { notificationRoutes } from './notifications';
import { openApiRoute } from './openapi';
import { shortLinkRoutes } from './short-links';
import { silenceRoutes } from './silences';
import { rotaRoutes } from './rotas';
import { suppressedRoutes } from './suppressed';
import { userPreferenceRoutes } from './user-preferences';
import { userRoutes } from './users';
import { phoneVerificationRoutes } from './phone-verification';
import { smsSpendRoutes } from './sms-spend';
import { vehicleRoutes } from './vehicles';
import { webhookRecoveryRoutes } from './webhook-recovery';
import { webhookRoutes } from './webhooks';

/** Every endpoint of the API, in one list that both the router and the OpenAPI document read. */
export const apiRoutes: ApiRoute[] = [
  ...authRoutes,
  ...agentRoutes,
  ...userRoutes,
  ...phoneVerificationRoutes,
  ...smsSpendRoutes,
  ...userPreferenceRoutes,
  ...vehicleRoutes,
  ...notificationRoutes,
  ...notificationPreviewRoutes,
  ...notificationTestRoutes,
  ...historyRoutes,
  ...alertLifecycleRoutes,
  ...alertLinkRoutes,
  ...alertMuteLinkRoutes,
  ...shortLinkRoutes,
  ...suppressedRoutes,
  ...geozoneRoutes,
  ...intersectionRoutes,
  ...channelRoutes,
  ...emailRoutes,
  ...webhookRoutes,
  ...webhookRecoveryRoutes,
  ...silenceRoutes,
  ...rotaRoutes,
  openApiRoute(() => apiRoutes),
];
