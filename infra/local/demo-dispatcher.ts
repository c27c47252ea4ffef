import { DEMO, OPEN_ALERTS_QUERY } from './demo';

/**
 * The demo's dispatcher: once an alert of the demo client has been escalated, it acknowledges that alert through
 * the HTTP API, as the person on duty would, so a newcomer sees both in the history: `escalatedAt`, then
 * `state: acknowledged` by the demo user. It acknowledges one alert, then stops; later alerts stay open and escalate.
 */
export const DISPATCHER_COMMENT = 'Demo dispatcher: on it';

// the API takes one request per second on a session
const REQUEST_GAP_MS = 1_100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function postJson(url: string, body: unknown, token?: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { 'x-auth': token } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/** Acknowledges the newest open alert that was escalated; its id, or null when there is none yet. */
export async function acknowledgeEscalated(apiUrl: string): Promise<string | null> {
  const login = await postJson(`${apiUrl}/auth/login`, { login: DEMO.login, password: DEMO.password });
  const token = (login.body as { AuthId?: string } | null)?.AuthId;
  if (login.status !== 200 || !token) throw new Error(`demo dispatcher: login answered ${login.status}`);
  await sleep(REQUEST_GAP_MS);
  const open = await postJson(`${apiUrl}/notifications/history`, { ...OPEN_ALERTS_QUERY, limit: 100 }, token);
  if (open.status !== 200) throw new Error(`demo dispatcher: history answered ${open.status}`);
  const items = (open.body as { items?: Array<{ alertId: string; escalatedAt?: string }> }).items ?? [];
  const escalated = items.find((item) => item.escalatedAt);
  if (!escalated) return null;
  await sleep(REQUEST_GAP_MS);
  const acknowledged = await postJson(`${apiUrl}/notifications/history/${escalated.alertId}/acknowledge`, { comment: DISPATCHER_COMMENT }, token);
  if (acknowledged.status !== 200) throw new Error(`demo dispatcher: acknowledge answered ${acknowledged.status}`);
  return escalated.alertId;
}

export interface RunningDispatcher {
  stop(): void;
}

/** Looks for an escalated alert every `intervalMs` until it has acknowledged one. */
export function startDemoDispatcher(options: {
  apiUrl: string;
  intervalMs?: number;
  onAcknowledged?: (alertId: string) => void;
  onError: (error: unknown) => void;
}): RunningDispatcher {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    try {
      const alertId = await acknowledgeEscalated(options.apiUrl);
      if (alertId) {
        options.onAcknowledged?.(alertId);
        return;
      }
    } catch (error) {
      options.onError(error);
    }
    if (!stopped) timer = setTimeout(() => void tick(), options.intervalMs ?? 20_000);
  };
  timer = setTimeout(() => void tick(), options.intervalMs ?? 20_000);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
