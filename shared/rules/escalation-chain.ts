import * as z from 'zod';
import { rotaIdSchema } from '../schemas/rota-id';

/** The most levels a chain has, and the most times it runs again after its last level. */
export const MAX_ESCALATION_LEVELS = 5;
export const MAX_ESCALATION_REPEAT = 3;
/** The latest a level may come: a day after the alert, in minutes. */
export const MAX_LEVEL_AFTER_MINUTES = 1_440;
/** The most targets of each kind one level names (rotas apart). */
export const MAX_LEVEL_TARGETS = 20;
export const MAX_LEVEL_ROTAS = 5;

const chatIdSchema = z
  .union([z.string().regex(/^-?\d{1,16}$/), z.number().int()])
  .transform(String)
  .describe('a Telegram chat id');

const levelShape = {
  after: z.number().int().min(1).max(MAX_LEVEL_AFTER_MINUTES).describe('minutes after the alert at which this level fires'),
  userIds: z
    .array(z.uuid({ version: undefined }))
    .max(MAX_LEVEL_TARGETS)
    .default([])
    .describe('users: by e-mail, their linked chats and phones'),
  telegrams: z.array(chatIdSchema).max(MAX_LEVEL_TARGETS).default([]).describe("Telegram chats linked by users of the rule owner's scope"),
  emails: z.array(z.email().max(320)).max(MAX_LEVEL_TARGETS).default([]).describe('side addresses (each confirms its link first)'),
  rotaIds: z.array(rotaIdSchema).max(MAX_LEVEL_ROTAS).default([]).describe('rotas: whoever is on call when the level fires'),
  sms: z
    .boolean()
    .default(false)
    .describe("also by SMS to the level's users and on-call people with a verified phone number, whatever the rule's smsMinSeverity"),
};

export const escalationLevelSchema = z
  .strictObject(levelShape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown level field (known: ${Object.keys(levelShape).join(', ')})` : undefined),
  })
  .refine((level) => level.userIds.length + level.telegrams.length + level.emails.length + level.rotaIds.length > 0, {
    message: 'a level needs someone to go to: userIds, telegrams, emails or rotaIds',
  })
  // SMS goes to users' verified numbers only: sms on a level of chats and addresses would be saved and do nothing
  .refine((level) => !level.sms || level.userIds.length + level.rotaIds.length > 0, {
    path: ['sms'],
    message: 'sms reaches nobody: name userIds or rotaIds, whose users get the level by SMS once their phoneNumber is verified',
  });
export type EscalationLevel = z.infer<typeof escalationLevelSchema>;

export const escalationChainSchema = z
  .array(escalationLevelSchema)
  .min(1)
  .max(MAX_ESCALATION_LEVELS)
  .superRefine((levels, ctx) => {
    levels.forEach((level, index) => {
      if (index > 0 && level.after <= levels[index - 1]!.after)
        ctx.addIssue({ code: 'custom', path: [index, 'after'], message: 'each level must come after the one before it' });
    });
  });

/**
 * `settings.escalation` as stored: the canonical JSON text of the chain (settings are a map of strings; the API
 * takes the chain as a JSON array or as its text).
 */
export const escalationSetting = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined || text.trim() === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array of levels [{after, userIds?, telegrams?, emails?, rotaIds?, sms?}]' });
      return z.NEVER;
    }
  })
  .pipe(escalationChainSchema.optional());

/** A rule's escalation as one chain: its levels, and how many times it runs again after the last. */
export interface EscalationChain {
  levels: EscalationLevel[];
  repeat: number;
}

/** What of a rule's settings makes its chain, already read by the settings schema. */
export interface ChainSettings {
  escalation?: EscalationLevel[] | undefined;
  escalationRepeat?: number | undefined;
  escalateAfter?: number | undefined;
  escalateUserIds?: string[] | undefined;
  escalateTelegrams?: string[] | undefined;
  escalateEmails?: string[] | undefined;
}

/**
 * The rule's chain: `escalation` with `escalationRepeat`, or the older `escalateAfter` with its targets as a
 * chain of one level (which never goes by SMS); null when the rule does not escalate.
 */
export function chainOf(settings: ChainSettings): EscalationChain | null {
  const repeat = settings.escalationRepeat ?? 0;
  if (settings.escalation && settings.escalation.length > 0) return { levels: settings.escalation, repeat };
  const after = settings.escalateAfter ?? 0;
  if (after <= 0) return null;
  return {
    levels: [
      {
        after,
        userIds: settings.escalateUserIds ?? [],
        telegrams: settings.escalateTelegrams ?? [],
        emails: settings.escalateEmails ?? [],
        rotaIds: [],
        sms: false,
      },
    ],
    repeat,
  };
}

/** One firing of a chain: which level, in which round (0 the first run), and when, in minutes after the alert. */
export interface ChainStep {
  level: number;
  round: number;
  after: number;
}

/**
 * The step after `previous` (or the first, without one): the next level of the round, else the first level of
 * the next round while rounds remain, else null. A round starts again where the last level of the previous one
 * fired: round r fires level i at r × (the last level's after) + (level i's after).
 */
export function nextStep(chain: EscalationChain, previous?: Pick<ChainStep, 'level' | 'round'>): ChainStep | null {
  const level = previous === undefined ? 0 : previous.level + 1;
  const round = previous?.round ?? 0;
  const period = chain.levels.at(-1)!.after;
  if (level < chain.levels.length) return { level, round, after: round * period + chain.levels[level]!.after };
  if (round < chain.repeat) return { level: 0, round: round + 1, after: (round + 1) * period + chain.levels[0]!.after };
  return null;
}
