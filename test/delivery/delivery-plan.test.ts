import { describe, expect, it } from 'vitest';
import { finalStatus } from '../../shared/delivery/deliver-alert';
import { planDelivery, type ScopeFacts } from '../../shared/delivery/targets';
import { storedUserSchema, type StoredUser } from '../../shared/schemas/directory';
import { storedRuleSchema, type StoredRule } from '../../shared/schemas/notification';

const PARENT = '5c0bd3a4-7ad5-4cde-9d3c-0a7b63f0b001';
const ids = ['0b8f5a43-3f2c-4f7e-9f53-6a1d3c9e0001', '0b8f5a43-3f2c-4f7e-9f53-6a1d3c9e0002', '0b8f5a43-3f2c-4f7e-9f53-6a1d3c9e0003'] as const;

/** Chats and devices are given as lists; the schema keys them by id. */
function user(index: 0 | 1 | 2, fields: Record<string, unknown> = {}): StoredUser {
  return storedUserSchema.parse({ id: ids[index], login: `u${index}`, email: `u${index}@example.com`, parentId: PARENT, ...fields });
}

function rule(fields: Partial<StoredRule>): StoredRule {
  return storedRuleSchema.parse({
    id: 1,
    type: 2,
    parentId: PARENT,
    name: 'r',
    version: 1,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    validFrom: '2026-01-01T00:00:00Z',
    expiresAt: '2026-12-01T00:00:00Z',
    ...fields,
  });
}

const chat = (chatId: string, active = true) => ({ chatId, username: '', active, linkedAt: '2026-01-01T00:00:00.000Z' });

/** Everyone and everything in scope: the plan as it was before scope checks. */
const open = (chats: string[] = []): ScopeFacts => ({ usersInScope: new Set(ids), linkedChats: new Set(chats), blockedEmails: new Map() });

describe('delivery plan', () => {
  it('targets only the channels the rule enables', () => {
    const users = [
      user(0, { telegramChats: [chat('1')], pushDevices: [{ platform: 'fcm', endpointArn: 'arn:e1', registeredAt: '2026-01-01T00:00:00.000Z' }] }),
    ];
    const plan = planDelivery(
      rule({ recipientIds: [ids[0]], toEmail: true, sideEmails: ['side@example.com'] }),
      users,
      undefined,
      open(),
      'speeding',
    );
    expect(plan.targets.map((target) => target.key)).toEqual(['email:u0@example.com']);
  });

  it('writes each recipient in its language and outside addresses in the owner language, each address once', () => {
    const users = [user(0, { language: 1 }), user(1, { language: 3, email: 'Shared@Example.com' })];
    const plan = planDelivery(
      rule({
        userId: ids[0],
        recipientIds: [ids[0], ids[1]],
        toEmail: true,
        enableSideEmails: true,
        sideEmails: ['shared@example.com', 'out@example.com'],
      }),
      users,
      1,
      open(),
      'speeding',
    );
    expect(plan.targets.map((target) => [target.key, target.language])).toEqual([
      ['email:u0@example.com', 1],
      ['email:shared@example.com', 3],
      ['email:out@example.com', 1],
    ]);
  });

  it('skips chats that blocked the bot and disabled users, and tries chats named on the rule only while linked in scope', () => {
    const users = [
      user(0, { telegramChats: [chat('1'), chat('2', false), chat('3', false)] }),
      user(1, { isEnabled: false, telegramChats: [chat('4')] }),
    ];
    const plan = planDelivery(
      rule({
        recipientIds: [ids[0], ids[1]],
        toEmail: true,
        toTelegram: true,
        telegrams: [
          { id: '3', info: '' },
          { id: '-100', info: '' },
        ],
      }),
      users,
      undefined,
      open(['-100']),
      'speeding',
    );
    expect(plan.targets.map((target) => target.key)).toEqual(['email:u0@example.com', 'telegram:1', 'telegram:-100']);
    expect(plan.targets.find((target) => target.key === 'telegram:-100')?.language).toBe(2);
    expect(plan.skipped.map((target) => target.key)).toEqual(['telegram:2', 'telegram:3', 'email:u1@example.com']);
  });

  it('ignores users that are no longer recipients of the rule', () => {
    const plan = planDelivery(rule({ userId: ids[2], recipientIds: [ids[0]], toEmail: true }), [user(0), user(2)], undefined, open(), 'speeding');
    expect(plan.targets.map((target) => target.key)).toEqual(['email:u0@example.com']);
  });

  it('skips recipients outside the owner scope and addresses that are unconfirmed, unsubscribed or suppressed', () => {
    const users = [user(0, { telegramChats: [chat('1')] }), user(1), user(2)];
    const plan = planDelivery(
      rule({ recipientIds: [ids[0], ids[1], ids[2]], toEmail: true, toTelegram: true, enableSideEmails: true, sideEmails: ['new@example.com'] }),
      users,
      undefined,
      {
        usersInScope: new Set([ids[1], ids[2]]),
        linkedChats: new Set(),
        blockedEmails: new Map([
          ['u2@example.com', 'suppressed'],
          ['new@example.com', 'not confirmed'],
        ]),
      },
      'speeding',
    );
    expect(plan.targets.map((target) => target.key)).toEqual(['email:u1@example.com']);
    expect(Object.fromEntries(plan.skipped.map((target) => [target.key, target.reason]))).toEqual({
      'email:u0@example.com': "user u0 is not in the rule owner's scope",
      'email:u2@example.com': 'the address is suppressed',
      'email:new@example.com': 'the address is not confirmed',
    });
  });

  it('settles as failed only when something had to go out and nothing did', () => {
    const at = '2026-01-01T00:00:00.000Z';
    expect(finalStatus([])).toBe('delivered');
    expect(finalStatus([{ status: 'skipped', at, attempts: 0 }])).toBe('delivered');
    expect(
      finalStatus([
        { status: 'failed', at, attempts: 1 },
        { status: 'sent', at, attempts: 1 },
      ]),
    ).toBe('delivered');
    expect(
      finalStatus([
        { status: 'failed', at, attempts: 1 },
        { status: 'skipped', at, attempts: 0 },
      ]),
    ).toBe('failed');
  });
});
