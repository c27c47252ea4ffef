import { randomBytes } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb';
import { batchGetItems } from './batch-get';
import { readConfig, resourcesConfig, telegramSchema } from '../config';
import { storedUserSchema, telegramChatSchema, type Language, type StoredUser, type TelegramChat } from '../schemas/directory';
import { updateUserMapEntry } from './user-maps';
import { conditionFailed } from './dynamo';
import { directoryKeys, PK } from './keys';

/**
 * Linking Telegram chats to users. A user asks the API for a single-use code, opens the bot with
 * `/start <code>`, and the webhook redeems the code for the chat it came from.
 *
 * Besides the code items (`TGCODE#<code>`), every linked chat has a small item `TGCHAT#<chatId>` naming its
 * user, so that `/stop` (which only knows the chat) can find the user, and a chat is linked to one user only.
 */
export const LINK_CODE_TTL_SECONDS = 15 * 60;

const chatKey = directoryKeys.telegramChat;

function table(): string {
  return resourcesConfig().DIRECTORY_TABLE;
}

/** Deep link that opens the bot with the code, when the bot's username is configured. */
export function telegramStartLink(code: string): string | null {
  const username = readConfig(telegramSchema()).TELEGRAM_BOT_USERNAME;
  return username ? `https://t.me/${username}?start=${code}` : null;
}

/** Creates a random single-use code for `userId`, valid for 15 minutes. */
export async function issueLinkCode(userId: string, now: number): Promise<{ code: string; expiresAt: string; link: string | null }> {
  // 80 random bits as hex: within what Telegram accepts as a /start parameter ([A-Za-z0-9_-], at most 64)
  const code = randomBytes(10).toString('hex');
  const expiresAtMs = now + LINK_CODE_TTL_SECONDS * 1000;
  const expiresAt = new Date(expiresAtMs).toISOString();
  await documentClient().send(
    new PutCommand({
      TableName: table(),
      Item: { ...directoryKeys.telegramCode(code), userId, expiresAt, ttl: Math.ceil(expiresAtMs / 1000) },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return { code, expiresAt, link: telegramStartLink(code) };
}

async function loadUser(userId: string): Promise<StoredUser | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: directoryKeys.user(userId), ConsistentRead: true }));
  if (!Item) return null;
  const parsed = storedUserSchema.safeParse(Item);
  return parsed.success ? parsed.data : null;
}

/** Whom a redeemed code linked the chat to, and the user's other chats that still take messages. */
export interface LinkedChat {
  userId: string;
  login: string;
  language: Language;
  otherChatIds: string[];
}

/** A chat sending `/start <code>`; in a forum topic of a group, the topic's thread. */
export interface LinkingChat {
  chatId: string;
  username: string;
  threadId?: number;
}

/**
 * Redeems a code for a chat. The code is claimed first by a conditional delete, so it works exactly once even
 * when Telegram delivers the same update twice; then the chat is set in the user's `telegramChats` map (added, or
 * re-activated). Returns null for an unknown, used or expired code, or when the user no longer exists.
 */
export async function redeemLinkCode(code: string, chat: LinkingChat, now: number): Promise<LinkedChat | null> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(code)) return null;
  let claimed: Record<string, unknown> | undefined;
  try {
    ({ Attributes: claimed } = await documentClient().send(
      new DeleteCommand({
        TableName: table(),
        Key: directoryKeys.telegramCode(code),
        ConditionExpression: 'attribute_exists(pk) AND expiresAt > :now',
        ExpressionAttributeValues: { ':now': new Date(now).toISOString() },
        ReturnValues: 'ALL_OLD',
      }),
    ));
  } catch (error) {
    if (conditionFailed(error)) return null;
    throw error;
  }
  const userId = claimed?.userId;
  if (typeof userId !== 'string') return null;

  try {
    const user = await addChatToUser(userId, chat, now);
    if (!user) return null;
    const previousOwner = await chatOwner(chat.chatId);
    await documentClient().send(new PutCommand({ TableName: table(), Item: { ...chatKey(chat.chatId), userId } }));
    if (previousOwner && previousOwner !== userId) await removeChatFromUser(previousOwner, chat.chatId);
    const otherChatIds = Object.values(user.telegramChats)
      .filter((other) => other.active && other.chatId !== chat.chatId)
      .map((other) => other.chatId);
    return { userId, login: user.login, language: user.language, otherChatIds };
  } catch (error) {
    // give the code back, so that the person can simply send it again
    await documentClient().send(new PutCommand({ TableName: table(), Item: claimed }));
    throw error;
  }
}

async function addChatToUser(userId: string, chat: LinkingChat, now: number): Promise<StoredUser | null> {
  const linked = telegramChatSchema.parse({
    chatId: chat.chatId,
    username: chat.username,
    active: true,
    ...(chat.threadId === undefined ? {} : { threadId: chat.threadId }),
    linkedAt: new Date(now).toISOString(),
  });
  const user = await loadUser(userId);
  if (!user) return null;
  const stored = await updateUserMapEntry(userId, 'telegramChats', chat.chatId, {
    UpdateExpression: 'SET #map.#id = :chat',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':chat': linked },
  });
  return stored ? user : null;
}

/** The users that linked each of these chats (a chat that sent /stop, or was never linked, is absent). */
export async function linkedChatOwners(chatIds: readonly string[]): Promise<Map<string, string>> {
  const owners = new Map<string, string>();
  for (const item of await batchGetItems(table(), [...new Set(chatIds)].map(chatKey))) {
    if (typeof item.userId === 'string') owners.set(String(item.pk).slice(PK.telegramChat.length), item.userId);
  }
  return owners;
}

/** The user a chat is linked to, or null. */
export async function chatOwner(chatId: string): Promise<string | null> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: chatKey(chatId) }));
  return typeof Item?.userId === 'string' ? Item.userId : null;
}

/** Removes one chat from a user. Returns whether the user had it. */
async function removeChatFromUser(userId: string, chatId: string): Promise<boolean> {
  return updateUserMapEntry(userId, 'telegramChats', chatId, {
    UpdateExpression: 'REMOVE #map.#id',
    ConditionExpression: 'attribute_exists(#map.#id)',
  });
}

/** `/stop`: unlinks a chat from whichever user it belongs to. Returns that user's id, or null if it was not linked. */
export async function unlinkTelegramChat(chatId: string): Promise<{ userId: string } | null> {
  const userId = await chatOwner(chatId);
  if (!userId) return null;
  await removeChatFromUser(userId, chatId);
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: chatKey(chatId) }));
  return { userId };
}

/**
 * A user unlinks one of their own chats (from the API). The chat's owner item goes first, and only when it
 * names this user, so a chat that has since moved to another user stays theirs, and rules stop reaching the
 * chat even if the second step fails. Returns false when the user has no such chat.
 */
export async function unlinkOwnTelegramChat(userId: string, chatId: string): Promise<boolean> {
  let owned = true;
  try {
    await documentClient().send(
      new DeleteCommand({
        TableName: table(),
        Key: chatKey(chatId),
        ConditionExpression: 'userId = :userId',
        ExpressionAttributeValues: { ':userId': userId },
      }),
    );
  } catch (error) {
    if (!conditionFailed(error)) throw error;
    owned = false;
  }
  const removed = await removeChatFromUser(userId, chatId);
  return owned || removed;
}

/** A chat that blocked the bot: kept on the user for the record, but no further sends. */
export async function markTelegramChatInactive(userId: string, chatId: string): Promise<void> {
  await updateUserMapEntry(userId, 'telegramChats', chatId, {
    UpdateExpression: 'SET #map.#id.active = :false',
    ConditionExpression: 'attribute_exists(#map.#id)',
    ExpressionAttributeValues: { ':false': false },
  });
}

export type { TelegramChat };
