import type { StoredWebhook } from '../../schemas/webhook';

/** The secrets that sign a delivery at `now`: the current one, and the previous one until its overlap ends. */
export function signingSecrets(endpoint: Pick<StoredWebhook, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>, now: number): string[] {
  const overlapping =
    endpoint.previousSecret !== null && endpoint.previousSecretExpiresAt !== null && Date.parse(endpoint.previousSecretExpiresAt) > now;
  return overlapping ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
}
