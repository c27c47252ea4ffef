import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { issueLinkCode, markTelegramChatInactive, redeemLinkCode, unlinkTelegramChat } from '../../shared/store/telegram-links';
import { getUser, putUser } from './support/fixtures';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { directoryKeys } from '../../shared/store/keys';

const NOW = Date.parse('2026-03-01T10:00:00Z');

describe('Telegram link codes', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('tg-links');
  });
  afterAll(async () => emulators.stop());

  it('links a chat once per code, and a second redemption fails', async () => {
    const user = await putUser({ login: 'dispatcher', email: 'dispatcher@example.com' });
    const { code, expiresAt } = await issueLinkCode(user.id, NOW);
    expect(code).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    expect(Date.parse(expiresAt)).toBe(NOW + 15 * 60 * 1000);

    const linked = await redeemLinkCode(code, { chatId: '4242', username: 'ops' }, NOW + 1000);
    expect(linked).toEqual({ userId: user.id, login: 'dispatcher', language: user.language, otherChatIds: [] });
    expect(Object.values((await getUser(user.id)).telegramChats ?? {})).toEqual([
      { chatId: '4242', username: 'ops', active: true, linkedAt: new Date(NOW + 1000).toISOString() },
    ]);

    expect(await redeemLinkCode(code, { chatId: '999', username: 'other' }, NOW + 2000)).toBeNull();
    expect(Object.values((await getUser(user.id)).telegramChats ?? {}).map((chat) => chat.chatId)).toEqual(['4242']);
  });

  it('refuses an expired or unknown code', async () => {
    const user = await putUser({ login: 'late', email: 'late@example.com' });
    const { code } = await issueLinkCode(user.id, NOW);
    expect(await redeemLinkCode(code, { chatId: '1', username: '' }, NOW + 16 * 60 * 1000)).toBeNull();
    expect(await redeemLinkCode('nosuchcode', { chatId: '1', username: '' }, NOW)).toBeNull();
    expect(await redeemLinkCode('bad code!', { chatId: '1', username: '' }, NOW)).toBeNull();
    expect(Object.values((await getUser(user.id)).telegramChats ?? {})).toEqual([]);
  });

  it('re-linking a blocked chat re-activates it without duplicating it', async () => {
    const user = await putUser({ login: 'relink', email: 'relink@example.com' });
    await redeemLinkCode((await issueLinkCode(user.id, NOW)).code, { chatId: '77', username: 'a' }, NOW);
    await markTelegramChatInactive(user.id, '77');
    expect(Object.values((await getUser(user.id)).telegramChats ?? {})[0]?.active).toBe(false);
    await redeemLinkCode((await issueLinkCode(user.id, NOW)).code, { chatId: '77', username: 'b' }, NOW);
    const chats = Object.values((await getUser(user.id)).telegramChats ?? {});
    expect(chats).toHaveLength(1);
    expect(chats[0]).toMatchObject({ chatId: '77', username: 'b', active: true });
  });

  it('moves a chat linked by another user, and /stop unlinks it', async () => {
    const first = await putUser({ login: 'first', email: 'first@example.com' });
    const second = await putUser({ login: 'second', email: 'second@example.com' });
    await redeemLinkCode((await issueLinkCode(first.id, NOW)).code, { chatId: '55', username: '' }, NOW);
    await redeemLinkCode((await issueLinkCode(second.id, NOW)).code, { chatId: '55', username: '' }, NOW);
    expect(Object.values((await getUser(first.id)).telegramChats ?? {})).toEqual([]);
    expect(Object.values((await getUser(second.id)).telegramChats ?? {}).map((chat) => chat.chatId)).toEqual(['55']);

    expect(await unlinkTelegramChat('55')).toEqual({ userId: second.id });
    expect(Object.values((await getUser(second.id)).telegramChats ?? {})).toEqual([]);
    expect(await unlinkTelegramChat('55')).toBeNull();
  });

  it('keeps chats in a map keyed by chat id, so concurrent links and unlinks of different chats lose nothing', async () => {
    const user = await putUser({ login: 'busy', email: 'busy@example.com' });
    for (const chatId of ['1', '2', '3']) await redeemLinkCode((await issueLinkCode(user.id, NOW)).code, { chatId, username: '' }, NOW);
    const codes = await Promise.all(['4', '5', '6', '7'].map(async () => (await issueLinkCode(user.id, NOW)).code));
    await Promise.all([
      ...codes.map((code, index) => redeemLinkCode(code, { chatId: String(index + 4), username: '' }, NOW)),
      unlinkTelegramChat('1'),
      markTelegramChatInactive(user.id, '3'),
    ]);
    const chats = (await getUser(user.id)).telegramChats;
    expect(Object.keys(chats).sort()).toEqual(['2', '3', '4', '5', '6', '7']);
    expect(chats['3']?.active).toBe(false);
    const { Item } = await documentClient().send(
      new GetCommand({ TableName: resourcesConfig().DIRECTORY_TABLE, Key: directoryKeys.user(user.id), ConsistentRead: true }),
    );
    expect(Array.isArray(Item?.telegramChats)).toBe(false);
  });

  it('reads a user stored with a list of chats, and turns it into a map on the next change', async () => {
    const user = await putUser({ login: 'legacy', email: 'legacy@example.com' });
    await documentClient().send(
      new UpdateCommand({
        TableName: resourcesConfig().DIRECTORY_TABLE,
        Key: directoryKeys.user(user.id),
        UpdateExpression: 'SET telegramChats = :list',
        ExpressionAttributeValues: { ':list': [{ chatId: '900', username: '', active: true, linkedAt: '2026-01-01T00:00:00.000Z' }] },
      }),
    );
    expect(Object.keys((await getUser(user.id)).telegramChats)).toEqual(['900']);
    await redeemLinkCode((await issueLinkCode(user.id, NOW)).code, { chatId: '901', username: '' }, NOW);
    expect(Object.keys((await getUser(user.id)).telegramChats).sort()).toEqual(['900', '901']);
  });
});
