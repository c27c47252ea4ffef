import { findWebhookClient, getWebhookWithSecrets } from '../store/webhooks-store';
import { notFound } from './errors';
import type { Caller } from './route';

/** The client of an endpoint the caller may manage, or a 404 for an unknown endpoint or one of another tenant. */
export async function endpointClient(endpointId: string, caller: Caller): Promise<string> {
  const clientId = await findWebhookClient(endpointId, caller.user.parentId);
  if (!clientId || !(await caller.scope.includes(clientId))) throw notFound(`webhook ${endpointId}`);
  return clientId;
}

/** The endpoint with its secrets, for a caller whose scope holds its client; 404 otherwise. */
export async function scopedEndpoint(endpointId: string, caller: Caller) {
  const clientId = await endpointClient(endpointId, caller);
  const endpoint = await getWebhookWithSecrets(clientId, endpointId);
  if (!endpoint) throw notFound(`webhook ${endpointId}`);
  return { clientId, endpoint };
}
