import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { describeError, type SendOutcome } from '../outcome';
import { addressRefusal } from './address-policy';
import { describeSendError, describeStatus, describeTimeout } from './failure-words';
import { retryAfterSeconds } from './retry-after';
import { guardedLookup, RefusedAddressError } from './guarded-lookup';
import type { SignatureScheme } from '../../schemas/webhook';
import { SIGNATURE_HEADER, signatureHeader } from './signature';
import { standardSignatureHeaders } from './standard-signature';

/** How long one delivery may take, connection, answer and all. */
export const WEBHOOK_TIMEOUT_MS = 5_000;
/** Bytes of an answer read before the connection is dropped: the body is not used, only the status. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface WebhookDelivery {
  url: string;
  /** The secrets that sign it, current first (the previous one too during a rotation's overlap). */
  secrets: readonly string[];
  scheme: SignatureScheme;
  /** The JSON body, signed exactly as sent. */
  body: string;
  /** The alert id: the receiver's key to drop a second copy. */
  idempotencyKey: string;
  /** `webhook-id`: the same for every delivery of the alert to this endpoint. */
  messageId: string;
  /** Where an alert's attempt is recorded in the endpoint's delivery log; tests and pings are not recorded. */
  log?: { endpointId: string; alertId: string; event: string };
}

export interface WebhookSendOptions {
  /** Loopback and private addresses, plain HTTP: local stack and tests only. */
  allowPrivate: boolean;
  /** Epoch ms, for the signature's timestamp. */
  now: number;
  timeoutMs?: number;
}

/**
 * What an answer means for the alert: 2xx sent; 410 the endpoint is gone (disabled, never retried); 408, 429
 * and 5xx a passing problem (retried on the delivery schedule, not before the `Retry-After` it carried, in
 * seconds); a redirect or any other 4xx a permanent failure, recorded on the alert. Redirects are not followed:
 * their target was never checked.
 */
export function outcomeOfStatus(status: number, retryAfter?: number): SendOutcome {
  if (status >= 200 && status < 300) return { status: 'sent' };
  if (status === 410) return { status: 'failed', error: describeStatus(status), gone: true };
  if (status === 408 || status === 429 || status >= 500) {
    return { status: 'retry', error: describeStatus(status), ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}) };
  }
  return { status: 'failed', error: describeStatus(status) };
}

/** What one POST came to, with what the receiver answered: its status (null without an answer) and the time it took. */
export interface WebhookAnswer {
  outcome: SendOutcome;
  httpStatus: number | null;
  latencyMs: number;
  /** Why the address policy refused the target before anything was sent; null when it was not refused. */
  refusal: string | null;
}

/** POSTs one signed alert; see `answerWebhook`. */
export async function sendWebhook(delivery: WebhookDelivery, options: WebhookSendOptions): Promise<SendOutcome> {
  return (await answerWebhook(delivery, options)).outcome;
}

/**
 * POSTs one signed delivery. Node's http(s) client is used rather than fetch because its `lookup` option lets the
 * connection use exactly the addresses that were checked (see `guarded-lookup.ts`); `AbortSignal.timeout`
 * bounds the whole exchange. Errors are described by name and message only: never the URL's query or the secret.
 */
export async function answerWebhook(delivery: WebhookDelivery, options: WebhookSendOptions): Promise<WebhookAnswer> {
  const started = performance.now();
  const answer = (outcome: SendOutcome, httpStatus: number | null = null, refusal: string | null = null): WebhookAnswer => ({
    outcome,
    httpStatus,
    latencyMs: Math.round(performance.now() - started),
    refusal,
  });
  const refused = (error: string) => answer({ status: 'failed', error }, null, error);
  let url: URL;
  try {
    url = new URL(delivery.url);
  } catch {
    return answer({ status: 'failed', error: 'the endpoint URL is not valid' });
  }
  const secure = url.protocol === 'https:';
  if (!secure && !(options.allowPrivate && url.protocol === 'http:')) return refused('the endpoint URL is not https');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(host)) {
    const refusal = addressRefusal(host);
    if (refusal) return refused(`refused: ${refusal}`);
  }

  const signature =
    delivery.scheme === 'standard'
      ? standardSignatureHeaders(delivery.secrets, delivery.messageId, options.now, delivery.body)
      : { [SIGNATURE_HEADER]: signatureHeader(delivery.secrets, Math.floor(options.now / 1000), delivery.body) };
  const requestOptions: RequestOptions = {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(delivery.body),
      'User-Agent': 'fleetwatch-webhooks/1',
      'Idempotency-Key': delivery.idempotencyKey,
      ...signature,
    },
    signal: AbortSignal.timeout(options.timeoutMs ?? WEBHOOK_TIMEOUT_MS),
    ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
  };
  try {
    const { status, retryAfter } = await post(url, secure, requestOptions, delivery.body);
    return answer(outcomeOfStatus(status, retryAfterSeconds(retryAfter, options.now)), status);
  } catch (error) {
    if (error instanceof RefusedAddressError || (error as Error).cause instanceof RefusedAddressError) {
      return refused(describeError(error instanceof RefusedAddressError ? error : (error as Error).cause));
    }
    if ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError') {
      return answer({ status: 'retry', error: describeTimeout(options.timeoutMs ?? WEBHOOK_TIMEOUT_MS) });
    }
    return answer({ status: 'retry', error: describeSendError(error) });
  }
}

/** The answer's status and its Retry-After header, if any. */
function post(url: URL, secure: boolean, options: RequestOptions, body: string): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = (secure ? httpsRequest : httpRequest)(url, options, (response: IncomingMessage) => {
      const answered = () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] });
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) response.destroy();
      });
      response.on('error', answered);
      response.on('close', answered);
    });
    request.on('error', reject);
    request.end(body);
  });
}
