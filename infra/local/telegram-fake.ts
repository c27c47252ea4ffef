import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the Telegram Bot API on 127.0.0.1 (no emulator exists), for `npm start` and the tests:
 * records every method call and answers like Telegram, including 429 with retry_after and 403 for a chat
 * that blocked the bot. Its page (`GET /`) shows the messages the bot sent, per chat, and lets one play a
 * Telegram user: a message typed there (`/start <code>`) reaches the bot's webhook as Telegram would post it,
 * secret token header included. Grammy reaches it through `TELEGRAM_API_ROOT`.
 */
export interface BotApiCall {
  token: string;
  method: string;
  payload: Record<string, unknown>;
  /** The message_id the fake answered a sent message with. */
  messageId?: number;
}

/** The bot's webhook, as registered with setWebhook on Telegram. */
export interface FakeTelegramWebhook {
  url: string;
  secretToken: string;
}

/** A message typed on the page as a Telegram user, and what the webhook answered. */
export interface UserMessage {
  chatId: string;
  text: string;
  webhookStatus: number | string;
}

type Scripted = { code: 429; retryAfter: number } | { code: 403 } | { code: 400; description: string } | { code: 500 };

export class FakeTelegram {
  readonly calls: BotApiCall[] = [];
  private server: Server | undefined;
  private readonly blocked = new Set<string>();
  private readonly scripted = new Map<string, Scripted[]>();
  private messageId = 1;
  private throttling: { retryAfter: number; requests: number } | undefined;
  private updateId = 1;
  /** Where "send as user" posts updates; the page only shows messages while it is not set. */
  webhook: FakeTelegramWebhook | undefined;
  readonly userMessages: UserMessage[] = [];

  /** Listens on `port` (a free one when 0): a fake stopped as an outage starts again on the port it had. */
  async start(port = 0): Promise<string> {
    this.server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
      if (request.method === 'GET' && path === '/') return this.page(response);
      if (request.method === 'POST' && path === '/send') return void this.sendAsUser(request, response);
      void this.handle(request).then(({ status, body }) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
    this.server = undefined;
  }

  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null | undefined)?.port;
  }

  /**
   * While on, every other sendMessage (whatever the chat) answers 429 with `retry_after`, as Telegram does
   * for a bot over its rate limit; `undefined` turns it off.
   */
  throttle(retryAfter: number | undefined): void {
    this.throttling = retryAfter === undefined ? undefined : { retryAfter, requests: 0 };
  }

  /** 429 answers given while throttling. */
  throttled = 0;

  /** Every later sendMessage to the chat answers 403, as for a user who blocked the bot. */
  block(chatId: string): void {
    this.blocked.add(chatId);
  }

  /** The next sendMessage calls to the chat get these answers, one each, before it succeeds again. */
  script(chatId: string, ...answers: Scripted[]): void {
    this.scripted.set(chatId, [...(this.scripted.get(chatId) ?? []), ...answers]);
  }

  reset(): void {
    this.calls.length = 0;
    this.userMessages.length = 0;
    this.blocked.clear();
    this.scripted.clear();
    this.throttling = undefined;
    this.throttled = 0;
  }

  /** Messages that Telegram accepted, per chat. */
  delivered(): { chatId: string; text: string; parseMode: unknown }[] {
    return this.calls
      .filter((call) => call.method === 'sendMessage' && call.payload.delivered === true)
      .map((call) => ({ chatId: String(call.payload.chat_id), text: String(call.payload.text), parseMode: call.payload.parse_mode }));
  }

  /**
   * Posts a private-chat message from a Telegram user to the bot's webhook, shaped as Telegram's Update, with
   * the secret token header Telegram sends. Returns the webhook's HTTP status.
   */
  async postUpdate(chatId: string, text: string): Promise<number> {
    if (!this.webhook) throw new Error('no webhook is set on the Telegram fake');
    const id = Number(chatId);
    const command = /^\/\w+/.exec(text);
    const update = {
      update_id: this.updateId++,
      message: {
        message_id: this.messageId++,
        date: Math.floor(Date.now() / 1000),
        chat: { id, type: 'private', first_name: 'Local user' },
        from: { id, is_bot: false, first_name: 'Local user', language_code: 'en' },
        text,
        ...(command ? { entities: [{ type: 'bot_command', offset: 0, length: command[0].length }] } : {}),
      },
    };
    const response = await fetch(this.webhook.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': this.webhook.secretToken },
      body: JSON.stringify(update),
    });
    await response.arrayBuffer();
    return response.status;
  }

  private page(response: ServerResponse): void {
    const sent = this.delivered().map((message) => ({ chatId: message.chatId, from: 'bot', text: message.text }));
    const rows = sent
      .map((message) => `<tr><td>${escapeHtml(message.chatId)}</td><td>bot → user</td><td><pre>${escapeHtml(message.text)}</pre></td></tr>`)
      .concat(
        this.userMessages.map(
          (message) =>
            `<tr><td>${escapeHtml(message.chatId)}</td><td>user → bot (webhook ${escapeHtml(String(message.webhookStatus))})</td><td><pre>${escapeHtml(message.text)}</pre></td></tr>`,
        ),
      )
      .join('\n');
    const form = this.webhook
      ? `<form method="post" action="/send">
<label>Chat id <input name="chatId" value="424242" pattern="-?[0-9]{1,15}" required></label>
<label>Message <input name="text" value="/start " size="40" required></label>
<button>Send as the user</button>
</form>
<p>Get a link code with <code>POST /api/v3/telegram/link</code> (logged in), then send <code>/start &lt;code&gt;</code>.</p>`
      : '<p>No bot webhook is connected to this fake.</p>';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; form-action 'self'" });
    response.end(`<!doctype html>
<html><head><meta charset="utf-8"><title>fleetwatch · local Telegram</title></head>
<body>
<h1>Local Telegram</h1>
<p>Messages the bot sent (newest last), and messages sent to it from this page. Nothing leaves this machine.</p>
${form}
<table border="1" cellpadding="4"><thead><tr><th>Chat</th><th>Direction</th><th>Text</th></tr></thead>
<tbody>
${rows || '<tr><td colspan="3">No messages yet.</td></tr>'}
</tbody></table>
</body></html>`);
  }

  private async sendAsUser(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // another site open in the browser must not be able to post as the user
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `http://${request.headers.host}`) {
      response.writeHead(403, { 'content-type': 'text/plain' }).end('cross-origin request refused');
      return;
    }
    let raw = '';
    for await (const chunk of request) {
      raw += chunk;
      if (raw.length > 10_000) break;
    }
    const form = new URLSearchParams(raw);
    const chatId = form.get('chatId') ?? '';
    const text = (form.get('text') ?? '').trim();
    if (!/^-?\d{1,15}$/.test(chatId) || text === '' || text.length > 4096) {
      response.writeHead(400, { 'content-type': 'text/plain' }).end('chatId must be a number and text 1-4096 characters');
      return;
    }
    let webhookStatus: number | string;
    try {
      webhookStatus = await this.postUpdate(chatId, text);
    } catch (error) {
      webhookStatus = (error as Error).message;
    }
    this.userMessages.push({ chatId, text, webhookStatus });
    response.writeHead(303, { location: '/' }).end();
  }

  private async handle(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(request.url ?? '');
    if (!match) return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } };
    const [, token, method] = match as unknown as [string, string, string];
    let raw = '';
    for await (const chunk of request) raw += chunk;
    const payload = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    const call: BotApiCall = { token, method, payload };
    this.calls.push(call);

    if (method === 'getMe') {
      return {
        status: 200,
        body: {
          ok: true,
          result: {
            id: 1000,
            is_bot: true,
            first_name: 'fleetwatch',
            username: 'fleetwatch_bot',
            can_join_groups: true,
            can_read_all_group_messages: false,
            supports_inline_queries: false,
          },
        },
      };
    }
    // sendLocation is answered like sendMessage: a Message, or the chat's scripted failure
    if (method !== 'sendMessage' && method !== 'sendLocation') return { status: 200, body: { ok: true, result: true } };

    const chatId = String(payload.chat_id);
    if (this.blocked.has(chatId)) {
      return { status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } };
    }
    if (this.throttling && this.throttling.requests++ % 2 === 0) {
      this.throttled++;
      const retryAfter = this.throttling.retryAfter;
      return {
        status: 429,
        body: { ok: false, error_code: 429, description: `Too Many Requests: retry after ${retryAfter}`, parameters: { retry_after: retryAfter } },
      };
    }
    const next = this.scripted.get(chatId)?.shift();
    if (next?.code === 429) {
      return {
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: `Too Many Requests: retry after ${next.retryAfter}`,
          parameters: { retry_after: next.retryAfter },
        },
      };
    }
    if (next?.code === 403) return { status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } };
    if (next?.code === 400) return { status: 400, body: { ok: false, error_code: 400, description: next.description } };
    if (next?.code === 500) return { status: 500, body: { ok: false, error_code: 500, description: 'Internal Server Error' } };
    payload.delivered = true;
    call.messageId = this.messageId++;
    return {
      status: 200,
      body: {
        ok: true,
        result: {
          message_id: call.messageId,
          date: 0,
          chat: { id: Number(chatId), type: 'private' },
          ...(method === 'sendLocation' ? { location: { latitude: payload.latitude, longitude: payload.longitude } } : { text: payload.text }),
          ...(payload.message_thread_id === undefined ? {} : { message_thread_id: payload.message_thread_id, is_topic_message: true }),
        },
      },
    };
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
