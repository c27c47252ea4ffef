import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Api } from 'grammy';
import { FakeTelegram } from '../../infra/local/telegram-fake';

/** The local Telegram fake's page and its "send as the user" form, against a recording webhook. */
describe('Telegram fake page', () => {
  const fake = new FakeTelegram();
  let url: string;
  let webhook: Server;
  const received: Array<{ secret: string | undefined; body: { message: { chat: { id: number }; text: string; entities?: unknown[] } } }> = [];

  beforeAll(async () => {
    webhook = createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      request.on('end', () => {
        received.push({ secret: request.headers['x-telegram-bot-api-secret-token'] as string | undefined, body: JSON.parse(raw) });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    url = await fake.start();
    fake.webhook = { url: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/telegram/webhook`, secretToken: 'the-secret' };
  });
  afterAll(async () => {
    await fake.stop();
    await new Promise<void>((resolve) => webhook.close(() => resolve()));
  });

  it('listens on loopback only', () => {
    expect(new URL(url).hostname).toBe('127.0.0.1');
  });

  it('lists the messages the bot sent, escaped', async () => {
    await new Api('1:token', { apiRoot: url }).sendMessage(4242, '<b>Speeding</b> & "quoted" <script>alert(1)</script>', { parse_mode: 'HTML' });
    const page = await (await fetch(url)).text();
    expect(page).toContain('&#60;b&#62;Speeding&#60;/b&#62; &#38; &#34;quoted&#34; &#60;script&#62;');
    expect(page).not.toContain('<script>alert(1)');
    expect(page).toContain('4242');
  });

  it('sends a message as the user to the webhook, shaped as a Telegram update with the secret header', async () => {
    const response = await fetch(`${url}/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'chatId=555&text=%2Fstart+ABC123',
      redirect: 'manual',
    });
    expect(response.status).toBe(303);
    expect(received).toHaveLength(1);
    expect(received[0]!.secret).toBe('the-secret');
    expect(received[0]!.body.message).toMatchObject({
      chat: { id: 555 },
      text: '/start ABC123',
      entities: [{ type: 'bot_command', offset: 0, length: 6 }],
    });
    expect(await (await fetch(url)).text()).toContain('/start ABC123');
  });

  it('refuses a bad form and a post from another origin', async () => {
    const bad = await fetch(`${url}/send`, {
      method: 'POST',
      body: 'chatId=abc&text=hi',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(bad.status).toBe(400);
    const forged = await fetch(`${url}/send`, {
      method: 'POST',
      body: 'chatId=1&text=hi',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(forged.status).toBe(403);
    expect(received).toHaveLength(1);
  });
});
