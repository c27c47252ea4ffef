/**
 * Against a local DynamoDB (an endpoint on this machine), the AWS SDK still wants a region and credentials;
 * any will do, so the admin CLI fills in local dummies instead of failing with "Region is missing". Against AWS
 * nothing is changed: the usual region and credential chain apply.
 */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1', '0.0.0.0']);

export function isLocalEndpoint(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.AWS_ENDPOINT_URL_DYNAMODB || env.AWS_ENDPOINT_URL;
  if (!endpoint) return false;
  try {
    return LOCAL_HOSTS.has(new URL(endpoint).hostname);
  } catch {
    return false;
  }
}

export function applyLocalDefaults(env: NodeJS.ProcessEnv = process.env): void {
  if (!isLocalEndpoint(env)) return;
  env.AWS_REGION ||= env.AWS_DEFAULT_REGION || 'us-east-1';
  if (!env.AWS_ACCESS_KEY_ID && !env.AWS_PROFILE) {
    env.AWS_ACCESS_KEY_ID = 'local';
    env.AWS_SECRET_ACCESS_KEY = 'local';
  }
}
