import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, verifySignature } from '../../shared/channels/webhook/signature';
import { webhookAlertPayloadSchema, type WebhookAlertPayload } from '../../shared/schemas/webhook';
import { escapeHtml } from '../../shared/channels/escape-html';

/**
 * A webhook receiver as an integrator would write one: it checks the Standard Webhooks signature with the
 * `standardwebhooks` package (or `X-Fleetwatch-Signature` from an endpoint still on `fleetwatch-v1`) against the
 * endpoint's secret (refusing a bad or stale signature with 401), keeps the alerts it accepted, and drops a
 * second copy of an alert by its `webhook-id` (`Idempotency-Key` without one). `npm start` runs one as the demo client's endpoint and
 * shows what it received at its own address; the tests run it with scripted failures.
 */
export interface ReceivedWebhook {
  alertId: string;
  idempotencyKey: string;
  payload: WebhookAlertPayload;
  receivedAt: string;
}

/** What the receiver answers the next request with: a status, or `hang` (never answer, until it is stopped). */
export type ScriptedAnswer = number | 'hang';

export interface WebhookReceiverOptions {
  port?: number;
  /** The endpoint's secret; set once the endpoint exists. */
  secret?: string;
  /** Called for each accepted alert (not for copies). */
  onAlert?: (received: ReceivedWebhook) => void;
  now?: () => number;
  /** An answer forced on the next request before any scripted one (an outage of the receiver), or undefined. */
  fault?: () => ScriptedAnswer | undefined;
}

export interface RunningWebhookReceiver {
  url: string;
  secret: string | undefined;
  /** Every POST that arrived, accepted or not, in order. */
  attempts: Array<{ idempotencyKey: string | undefined; signatureValid: boolean; status: ScriptedAnswer }>;
  /** Every POST that arrived, as sent: its headers and body. */
  requests: Array<{ headers: IncomingHttpHeaders; body: string }>;
  /** Alerts accepted, without copies. */
  received: ReceivedWebhook[];
  /** Answers for the next requests, in order; once used up the receiver answers 200 again. */
  script(...answers: ScriptedAnswer[]): void;
  stop(): Promise<void>;
}

const KEPT = 200;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function page(received: readonly ReceivedWebhook[]): string {
  const rows = [...received]
    .reverse()
    .map(
      (entry) =>
        `<tr><td>${escapeHtml(entry.receivedAt)}</td><td>${escapeHtml(entry.payload.event.kind)}</td><td>${escapeHtml(entry.payload.vehicle.name)}</td>` +
        `<td>${escapeHtml(entry.payload.rule.name)}</td><td><code>${escapeHtml(entry.alertId)}</code></td></tr>`,
    )
    .join('');
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>fleetwatch webhook receiver</title></head><body>` +
    `<h1>Alerts received by the demo webhook</h1><p>${received.length} alert(s), signatures checked. JSON: <a href="received.json">received.json</a></p>` +
    `<table border="1" cellpadding="4"><tr><th>received</th><th>event</th><th>vehicle</th><th>rule</th><th>alert id</th></tr>${rows}</table></body></html>`
  );
}

/** A Standard Webhooks delivery checked by the `standardwebhooks` package; else `X-Fleetwatch-Signature`. */
function verified(headers: IncomingHttpHeaders, body: string, secret: string, now: number): boolean {
  const first = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  if (first('webhook-signature') === undefined) return verifySignature(first(SIGNATURE_HEADER.toLowerCase()), body, secret, now);
  try {
    new Webhook(secret).verify(body, {
      'webhook-id': first('webhook-id') ?? '',
      'webhook-timestamp': first('webhook-timestamp') ?? '',
      'webhook-signature': first('webhook-signature') ?? '',
    });
    return true;
  } catch {
    return false;
  }
}

export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<RunningWebhookReceiver> {
  const now = options.now ?? Date.now;
  const answers: ScriptedAnswer[] = [];
  const hanging = new Set<ServerResponse>();
  const seen = new Set<string>();
  const receiver: RunningWebhookReceiver = {
    url: '',
    secret: options.secret,
    attempts: [],
    requests: [],
    received: [],
    script: (...next) => answers.push(...next),
    stop: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method === 'GET') {
      const json = request.url?.endsWith('received.json');
      response.writeHead(200, { 'Content-Type': json ? 'application/json' : 'text/html; charset=utf-8' });
      response.end(json ? JSON.stringify(receiver.received) : page(receiver.received));
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    const body = await readBody(request);
    receiver.requests.push({ headers: request.headers, body });
    const signatureValid = receiver.secret !== undefined && verified(request.headers, body, receiver.secret, now());
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    const copyKey = (request.headers['webhook-id'] as string | undefined) ?? idempotencyKey;
    const scripted = options.fault?.() ?? answers.shift();
    const status: ScriptedAnswer = scripted ?? (signatureValid ? 200 : 401);
    receiver.attempts.push({ idempotencyKey, signatureValid, status });
    if (status === 'hang') {
      hanging.add(response);
      return;
    }
    if (status >= 200 && status < 300 && signatureValid && idempotencyKey && copyKey && !seen.has(copyKey)) {
      const parsed = webhookAlertPayloadSchema.safeParse(JSON.parse(body));
      if (parsed.success) {
        seen.add(copyKey);
        const entry = { alertId: parsed.data.alertId, idempotencyKey, payload: parsed.data, receivedAt: new Date(now()).toISOString() };
        receiver.received.push(entry);
        if (receiver.received.length > KEPT) receiver.received.shift();
        options.onAlert?.(entry);
      }
    }
    response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ received: status < 300 }));
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(400).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return receiver;
}
