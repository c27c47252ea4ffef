import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTelegramApi, TELEGRAM_API_TIMEOUT_SECONDS } from '../../shared/channels/telegram/bot-api';
import { sendTelegramMessage } from '../../shared/channels/telegram/send-telegram';

/**
 * A Bot API that takes the connection and never answers (a real socket on loopback): the call is aborted after
 * the client's timeout, not grammy's default of 500 s, and the message is left for a retry.
 */
describe('Bot API timeout', () => {
  let silent: Server;

  beforeAll(async () => {
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    vi.stubEnv('TELEGRAM_API_ROOT', `http://127.0.0.1:${(silent.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it(`gives up on a silent Bot API after ${TELEGRAM_API_TIMEOUT_SECONDS} s and leaves the message for a retry`, async () => {
    const started = Date.now();
    const outcome = await sendTelegramMessage(createTelegramApi('42:timeout-bot'), '9001', { html: 'hi', text: 'hi' });
    const seconds = (Date.now() - started) / 1000;
    expect(outcome).toEqual({ status: 'retry', error: `Telegram did not answer within ${TELEGRAM_API_TIMEOUT_SECONDS} s` });
    expect(seconds).toBeGreaterThanOrEqual(TELEGRAM_API_TIMEOUT_SECONDS - 0.5);
    expect(seconds).toBeLessThan(TELEGRAM_API_TIMEOUT_SECONDS + 5);
  }, 30_000);
});
