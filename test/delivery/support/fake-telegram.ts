import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the Telegram Bot API on 127.0.0.1 (no emulator exists): records every method call and
 * answers like Telegram, including 429 with retry_after and 403 for a chat that blocked the bot.
 */
export interface BotApiCall {
  token: string;
  method: string;
  payload: Record<string, unknown>;
}

type Scripted = { code: 429; retryAfter: number } | { code: 403 } | { code: 400; description: string } | { code: 500 };

export class FakeTelegram {
  readonly calls: BotApiCall[] = [];
  private server: Server | undefined;
  private readonly blocked = new Set<string>();
  private readonly scripted = new Map<string, Scripted[]>();
  private messageId = 1;
  private throttling: { retryAfter: number; requests: number } | undefined;

  /** Listens on `port` (a free one when 0): a fake stopped as an outage starts again on the port it had. */
  async start(port = 0): Promise<string> {
    this.server = createServer((request, response) => {
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
      return { status: 200, body: { ok: true, result: { id: 1000, is_bot: true, first_name: 'fleetwatch', username: 'fleetwatch_bot', can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false } } };
    }
    if (method !== 'sendMessage') return { status: 200, body: { ok: true, result: true } };

    const chatId = String(payload.chat_id);
    if (this.blocked.has(chatId)) {
      return { status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } };
    }
    if (this.throttling && this.throttling.requests++ % 2 === 0) {
      this.throttled++;
      const retryAfter = this.throttling.retryAfter;
      return { status: 429, body: { ok: false, error_code: 429, description: `Too Many Requests: retry after ${retryAfter}`, parameters: { retry_after: retryAfter } } };
    }
    const next = this.scripted.get(chatId)?.shift();
    if (next?.code === 429) {
      return { status: 429, body: { ok: false, error_code: 429, description: `Too Many Requests: retry after ${next.retryAfter}`, parameters: { retry_after: next.retryAfter } } };
    }
    if (next?.code === 403) return { status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } };
    if (next?.code === 400) return { status: 400, body: { ok: false, error_code: 400, description: next.description } };
    if (next?.code === 500) return { status: 500, body: { ok: false, error_code: 500, description: 'Internal Server Error' } };
    payload.delivered = true;
    return {
      status: 200,
      body: { ok: true, result: { message_id: this.messageId++, date: 0, chat: { id: Number(chatId), type: 'private' }, text: payload.text } },
    };
  }
}
