import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countSegments, type SmsEncoding } from '../../shared/channels/sms/segments';
import { escapeHtml } from '../../shared/channels/escape-html';

/**
 * A stand-in for AWS End User Messaging SMS on 127.0.0.1, for `npm start` and the tests: no emulator of the
 * service exists, so this fake speaks the AWS JSON 1.0 protocol of `pinpoint-sms-voice-v2` for the operations
 * fleetwatch calls, and the real `PinpointSMSVoiceV2Client` reaches it through its endpoint
 * (AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2). It keeps an opt-out list as the service does: a number that replied
 * STOP is refused with ConflictException / DESTINATION_PHONE_NUMBER_OPTED_OUT until it replies START.
 * Its page (`GET /`) lists the SMS sent, with encoding and segments, and a form replies from a number.
 * With `onEvent` set it plays the configuration set's event destination: each SMS sent is reported
 * TEXT_DELIVERED, and the page can report one failed or expired after all.
 * Not modelled: signatures (never checked), real carriers' receipts (`event` builds them), real prices.
 */
export interface SentSms {
  messageId: string;
  to: string;
  from: string;
  body: string;
  messageType: string;
  configurationSet: string | undefined;
  maxPrice: string | undefined;
  timeToLive: number | undefined;
  context: Record<string, string>;
  encoding: SmsEncoding;
  segments: number;
  at: string;
}

/** A reply typed on the page, and what the reply hook answered. */
export interface SmsReply {
  from: string;
  text: string;
  outcome: string;
}

type Scripted = { error: 'ThrottlingException' | 'InternalServerException' | 'ValidationException'; reason?: string };

const OPT_OUT_WORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'OPT-OUT', 'REVOKE']);
const OPT_IN_WORDS = new Set(['START', 'UNSTOP', 'YES']);
/** The final events the page can report for a sent SMS, with the service's description of each. */
const PAGE_EVENTS = new Map([
  ['TEXT_CARRIER_UNREACHABLE', 'The carrier could not be reached'],
  ['TEXT_TTL_EXPIRED', 'The message was not delivered within its time to live'],
]);

export class FakeSms {
  readonly sent: SentSms[] = [];
  readonly replies: SmsReply[] = [];
  readonly optedOut = new Set<string>();
  /** Every request by operation name, refused ones included. */
  readonly requests: { operation: string; payload: Record<string, unknown> }[] = [];
  private readonly scripted: Scripted[] = [];
  private server: Server | undefined;
  /** Called with a non-keyword reply (a code typed on the page), e.g. to confirm it through the API. */
  onReply: ((from: string, text: string) => Promise<string>) | undefined;
  /**
   * The configuration set's event destination: called with each delivery event (`event`'s JSON) the fake reports,
   * TEXT_DELIVERED once an SMS is sent, or what the page marks it. Without it no events are produced.
   */
  onEvent: ((message: string) => void) | undefined;

  async start(port = 0): Promise<string> {
    this.server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
      if (request.method === 'GET' && path === '/') return this.page(response);
      if (request.method === 'POST' && path === '/reply') return void this.replyFromPage(request, response);
      if (request.method === 'POST' && path === '/event') return void this.eventFromPage(request, response);
      void this.handle(request, response);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /**
   * The delivery event the service's configuration set would publish for a sent SMS (through SNS), such as
   * TEXT_DELIVERED, TEXT_TTL_EXPIRED or TEXT_CARRIER_UNREACHABLE, as the JSON an SNS record carries.
   */
  event(
    sent: SentSms,
    eventType: string,
    description = eventType === 'TEXT_DELIVERED' ? 'Message has been accepted by phone' : 'Message failed',
  ): string {
    return JSON.stringify({
      eventType,
      eventVersion: '1.0',
      eventTimestamp: Date.now(),
      isFinal: !['TEXT_QUEUED', 'TEXT_PENDING', 'TEXT_SUCCESSFUL'].includes(eventType),
      originationPhoneNumber: sent.from,
      destinationPhoneNumber: sent.to,
      messageId: sent.messageId,
      messageEncoding: sent.encoding === 'GSM-7' ? 'GSM' : 'UCS2',
      messageType: sent.messageType,
      messageStatus: eventType.replace(/^TEXT_/, ''),
      messageStatusDescription: description,
      context: sent.context,
      totalMessageParts: sent.segments,
    });
  }

  /** The next sends fail like this, one each, before the fake answers normally again. */
  script(...failures: Scripted[]): void {
    this.scripted.push(...failures);
  }

  /** A reply from a number, as a handset would send it: STOP and its equivalents opt it out, START in again. */
  async reply(from: string, text: string): Promise<string> {
    const word = text.trim().toUpperCase();
    let outcome: string;
    if (OPT_OUT_WORDS.has(word)) {
      this.optedOut.add(from);
      outcome = 'opted out';
    } else if (OPT_IN_WORDS.has(word)) {
      this.optedOut.delete(from);
      outcome = 'opted in';
    } else outcome = this.onReply ? await this.onReply(from, text.trim()) : 'no one listens to replies';
    this.replies.push({ from, text, outcome });
    return outcome;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const target = String(request.headers['x-amz-target'] ?? '');
    const operation = target.split('.').pop() ?? '';
    const payload = JSON.parse((await readBody(request)) || '{}') as Record<string, unknown>;
    this.requests.push({ operation, payload });
    const answer = (status: number, body: unknown, errorType?: string) => {
      response.writeHead(status, {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': randomUUID(),
        ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
      });
      response.end(JSON.stringify(errorType ? { __type: errorType, ...(body as object) } : body));
    };
    if (operation === 'SendTextMessage') {
      const failure = this.scripted.shift();
      if (failure)
        return answer(
          failure.error === 'ValidationException' ? 400 : failure.error === 'ThrottlingException' ? 400 : 500,
          { Message: `scripted ${failure.error}`, ...(failure.reason ? { Reason: failure.reason } : {}) },
          failure.error,
        );
      const to = String(payload.DestinationPhoneNumber ?? '');
      if (this.optedOut.has(to))
        return answer(
          400,
          {
            Message: 'The destination phone number is opted out.',
            Reason: 'DESTINATION_PHONE_NUMBER_OPTED_OUT',
            ResourceType: 'opt-out-list',
            ResourceId: 'Default',
          },
          'ConflictException',
        );
      const body = String(payload.MessageBody ?? '');
      const { encoding, segments } = countSegments(body);
      const sms: SentSms = {
        messageId: randomUUID(),
        to,
        from: String(payload.OriginationIdentity ?? ''),
        body,
        messageType: String(payload.MessageType ?? ''),
        configurationSet: payload.ConfigurationSetName as string | undefined,
        maxPrice: payload.MaxPrice as string | undefined,
        timeToLive: payload.TimeToLive as number | undefined,
        context: (payload.Context as Record<string, string> | undefined) ?? {},
        encoding,
        segments,
        at: new Date().toISOString(),
      };
      this.sent.push(sms);
      answer(200, { MessageId: sms.messageId });
      this.onEvent?.(this.event(sms, 'TEXT_DELIVERED'));
      return;
    }
    if (operation === 'DescribeSpendLimits')
      return answer(200, { SpendLimits: [{ Name: 'TEXT_MESSAGE_MONTHLY_SPEND_LIMIT', EnforcedLimit: 100, MaxLimit: 100, Overridden: false }] });
    return answer(400, { Message: `the SMS fake does not implement ${operation}` }, 'ValidationException');
  }

  private async replyFromPage(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(request));
    await this.reply(form.get('from') ?? '', form.get('text') ?? '');
    response.writeHead(303, { location: '/' });
    response.end();
  }

  /** A later final event for a sent SMS, as its carrier might report it: it replaces the outcome recorded. */
  private async eventFromPage(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(request));
    const sms = this.sent.find((each) => each.messageId === form.get('messageId'));
    const eventType = form.get('eventType') ?? '';
    if (!sms || !PAGE_EVENTS.has(eventType)) {
      response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('no such SMS, or not an event the page reports');
      return;
    }
    this.onEvent?.(this.event(sms, eventType, PAGE_EVENTS.get(eventType)));
    response.writeHead(303, { location: '/' });
    response.end();
  }

  private page(response: ServerResponse): void {
    const rows = [...this.sent]
      .reverse()
      .map(
        (sms) =>
          `<tr><td>${escapeHtml(sms.at)}</td><td>${escapeHtml(sms.to)}</td><td>${escapeHtml(sms.body)}</td><td>${sms.encoding}</td><td>${sms.segments}</td><td>${escapeHtml(sms.context.alertId ?? sms.context.purpose ?? '')}</td><td>${this.onEvent ? markForms(sms.messageId) : ''}</td></tr>`,
      )
      .join('');
    const replies = [...this.replies]
      .reverse()
      .map((reply) => `<li>${escapeHtml(reply.from)}: ${escapeHtml(reply.text)} → ${escapeHtml(reply.outcome)}</li>`)
      .join('');
    const optedOut = [...this.optedOut].map((number) => `<li>${escapeHtml(number)}</li>`).join('');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html><head><meta charset="utf-8"><title>SMS fake</title></head><body>
<h1>SMS sent</h1>
<table border="1"><tr><th>at</th><th>to</th><th>text</th><th>encoding</th><th>segments</th><th>alert</th><th>report</th></tr>${rows}</table>
<h2>Reply from a phone</h2>
<form method="post" action="/reply"><label>from <input name="from" placeholder="+994501234567"></label>
<label>text <input name="text" placeholder="STOP, START or a code"></label><button>reply</button></form>
<h2>Replies</h2><ul>${replies}</ul>
<h2>Opted out</h2><ul>${optedOut}</ul></body></html>`);
  }
}

function markForms(messageId: string): string {
  return [...PAGE_EVENTS.keys()]
    .map(
      (eventType) =>
        `<form method="post" action="/event" style="display:inline"><input type="hidden" name="messageId" value="${escapeHtml(messageId)}">` +
        `<button name="eventType" value="${eventType}">${eventType === 'TEXT_TTL_EXPIRED' ? 'expired' : 'failed'}</button></form>`,
    )
    .join(' ');
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
