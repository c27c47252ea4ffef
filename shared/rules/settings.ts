import { escalationSetting, MAX_ESCALATION_REPEAT } from './escalation-chain';
import * as z from 'zod';
import { parseSchedule } from './schedule';
import { RULE_SCOPES } from './scope';
import { SEVERITIES } from '../schemas/severity';

/**
 * Building blocks for rule settings schemas. A rule's settings arrive as a string map (the platform's
 * `settings` field); each evaluator turns it into typed settings once, when the rule index is compiled.
 * A key the evaluator does not know is refused: a misspelt key would otherwise be saved and silently replaced
 * by its default, so the rule would not do what its author wrote.
 */

const numberText = z
  .string()
  .trim()
  .regex(/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/, { message: 'must be a number' })
  .transform(Number);

interface NumberOptions {
  min?: number;
  max?: number;
  int?: boolean;
}

function bounded(options: NumberOptions) {
  let number = z.number();
  if (options.int) number = number.int();
  if (options.min !== undefined) number = number.min(options.min);
  if (options.max !== undefined) number = number.max(options.max);
  return number;
}

/**
 * Options for a rule between settings: judged only once every setting read well, so that a malformed value
 * is reported as itself rather than as a broken constraint it happens to take part in.
 */
export const onceReadable = { when: (payload: z.core.ParsePayload) => payload.issues.length === 0 } as const;

/** A numeric setting with a default. */
export function numberSetting(fallback: number, options: NumberOptions = {}) {
  return z.string().default(String(fallback)).pipe(numberText).pipe(bounded(options));
}

/** A numeric setting that must be present. */
export function requiredNumberSetting(options: NumberOptions = {}) {
  return z.string({ error: 'is required' }).pipe(numberText).pipe(bounded(options));
}

/** A numeric setting that may be left out (undefined). */
export function optionalNumberSetting(options: NumberOptions = {}) {
  return z
    .string()
    .optional()
    .transform((text) => (text === undefined || text.trim() === '' ? undefined : text))
    .pipe(numberText.pipe(bounded(options)).optional());
}

/** true/false, 1/0, yes/no, on/off (any case). */
export function booleanSetting(fallback: boolean) {
  return z
    .string()
    .default(String(fallback))
    .transform((text) => text.trim().toLowerCase())
    .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { message: 'must be true or false' }))
    .transform((text) => text === 'true' || text === '1' || text === 'yes' || text === 'on');
}

/** true/false (as booleanSetting), or undefined when left out. */
export function optionalBooleanSetting() {
  return z
    .string()
    .transform((text) => text.trim().toLowerCase())
    .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { message: 'must be true or false' }))
    .transform((text) => text === 'true' || text === '1' || text === 'yes' || text === 'on')
    .optional();
}

/** One of a fixed set of words (case-insensitive). */
export function enumSetting<const Values extends readonly [string, ...string[]]>(values: Values, fallback: Values[number]) {
  return z
    .string()
    .default(fallback)
    .transform((text) => text.trim().toLowerCase())
    .pipe(z.enum(values, { message: `must be one of ${values.join(', ')}` }));
}

/** One of a fixed set of words (case-insensitive), or undefined when left out. */
export function optionalEnumSetting<const Values extends readonly [string, ...string[]]>(values: Values) {
  return z
    .string()
    .transform((text) => text.trim().toLowerCase())
    .pipe(z.enum(values, { message: `must be one of ${values.join(', ')}` }))
    .optional();
}

/** Name of a terminal message parameter. */
export function parameterKeySetting(fallback: string) {
  return z
    .string()
    .default(fallback)
    .pipe(z.string().trim().min(1, { message: 'must name a parameter' }).max(64));
}

/**
 * When a rule may raise alerts (schedule.ts), in the rule's `timezone`; left out or blank: always. Parsed once,
 * with the rest of the settings, so a rule's compiled form holds the windows and the API's 400 names the problem.
 */
export const scheduleSetting = z
  .string()
  .transform((text, ctx) => {
    if (text.trim() === '') return undefined;
    const parsed = parseSchedule(text);
    if (parsed.ok) return parsed.schedule;
    ctx.addIssue({ code: 'custom', message: parsed.error });
    return z.NEVER;
  })
  .optional();

/** Geozone ids separated by commas ("12, 14"); blank: none. */
export const zoneIdsSetting = z
  .string()
  .transform((text, ctx) => {
    const parts = text
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
    if (parts.length === 0) return undefined;
    const ids: number[] = [];
    for (const part of parts) {
      const id = /^\d{1,15}$/.test(part) ? Number(part) : Number.NaN;
      if (!Number.isSafeInteger(id) || id < 1) {
        ctx.addIssue({ code: 'custom', message: `"${part}" is not a geozone id (ids separated by commas, e.g. 12,14)` });
        return z.NEVER;
      }
      if (!ids.includes(id)) ids.push(id);
    }
    if (ids.length > 100) {
      ctx.addIssue({ code: 'custom', message: 'at most 100 geozones' });
      return z.NEVER;
    }
    return ids;
  })
  .optional();

/**
 * A list given as text, items separated by commas ("a, b"); blank: none. Each item must read as `item`; at most
 * `max` of them, duplicates dropped.
 */
function listSetting<Item>(item: z.ZodType<Item, string>, what: string, example: string, max: number) {
  return z
    .string()
    .transform((text, ctx) => {
      const parts = text
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '');
      if (parts.length === 0) return undefined;
      const items: Item[] = [];
      for (const part of parts) {
        const parsed = item.safeParse(part);
        if (!parsed.success) {
          ctx.addIssue({ code: 'custom', message: `"${part}" is not ${what} (separated by commas, e.g. ${example})` });
          return z.NEVER;
        }
        if (!items.includes(parsed.data)) items.push(parsed.data);
      }
      if (items.length > max) {
        ctx.addIssue({ code: 'custom', message: `at most ${max}` });
        return z.NEVER;
      }
      return items;
    })
    .optional();
}

/** The longest `escalateAfter`: a day, in minutes. */
export const MAX_ESCALATE_AFTER_MINUTES = 1_440;
/** The most targets of each kind an escalation names. */
export const MAX_ESCALATION_TARGETS = 20;

/** The longest `autoCloseHours`: 30 days, well inside the 90 days an alert is kept. */
export const MAX_AUTO_CLOSE_HOURS = 720;

/** The longest `maxEventAge`: a week, in seconds. */
export const MAX_EVENT_AGE_SECONDS = 604_800;

/**
 * Keys every rule type takes: the rule's own wording of its notifications (`{{placeholder}}` fields, plain text),
 * the hours in which it may raise alerts, which vehicles it watches, the geozones that bound where it alerts,
 * its noise budget (shared/pipeline/noise-budget.ts), after how many hours its stored alerts close by themselves, how
 * old a message may be for its events to become alerts, how much its alerts matter, and whom they escalate to.
 */
export const commonSettings = (): CommonSettingsShape => (common ??= buildCommonSettings());

// built on first use, as the types' settings schemas are (settingsMap)
let common: CommonSettingsShape | undefined;

const buildCommonSettings = () => ({
  messageSubject: z.string().max(200).optional(),
  messageTemplate: z.string().max(2_000).optional(),
  schedule: scheduleSetting,
  // left out when not given (their defaults, listed and inside, are read where they are used), so a rule's
  // compiled settings hold only what its author chose
  scope: optionalEnumSetting(RULE_SCOPES),
  zones: zoneIdsSetting,
  zoneMode: optionalEnumSetting(['inside', 'outside']),
  autoCloseHours: optionalNumberSetting({ min: 0, max: MAX_AUTO_CLOSE_HOURS, int: true }),
  /** Seconds after an alert of the rule for a vehicle during which its further alerts for that vehicle are held. */
  cooldown: optionalNumberSetting({ min: 0, max: 86_400 }),
  /** Alerts per vehicle and local day (the rule's timezone); 0: no cap. */
  maxPerDay: optionalNumberSetting({ min: 0, max: 1_000, int: true }),
  /** Minutes between reminders while an alerted episode lasts; 0: none. */
  repeat: optionalNumberSetting({ min: 0, max: 10_080 }),
  /** A `cleared` message when an alerted episode ends. */
  notifyCleared: optionalBooleanSetting(),
  /** How much the rule's alerts matter; left out: the type's default, which may depend on the event (severity.ts). */
  severity: optionalEnumSetting(SEVERITIES),
  /** Minutes after which a stored alert still open goes to the escalation targets; 0: never. */
  escalateAfter: optionalNumberSetting({ min: 0, max: MAX_ESCALATE_AFTER_MINUTES, int: true }),
  escalateUserIds: listSetting(z.uuid({ version: undefined }), 'a user id', '8d3c0f5e-…, 1a2b3c4d-…', MAX_ESCALATION_TARGETS),
  escalateTelegrams: listSetting(z.string().regex(/^-?\d{1,16}$/), 'a Telegram chat id', '123456789, -1001234567890', MAX_ESCALATION_TARGETS),
  escalateEmails: listSetting(z.email().max(320), 'an e-mail address', 'duty@example.com, lead@example.com', MAX_ESCALATION_TARGETS),
  /**
   * Seconds a message may be old when evaluated for its events to become alerts; 0: any age. Left out when not
   * given: the default is the deployment's (MAX_EVENT_AGE_SECONDS), read where events are admitted.
   */
  maxEventAge: optionalNumberSetting({ min: 0, max: MAX_EVENT_AGE_SECONDS, int: true }),
  /** The least severity an alert must have to go by SMS (toSms); left out: critical. */
  smsMinSeverity: optionalEnumSetting(SEVERITIES),
  /** The least severity an alert must have to be escalated; left out: info (every alert). */
  escalateMinSeverity: optionalEnumSetting(SEVERITIES),
  /** An escalation chain: up to 5 levels, each `after` minutes counted from the alert (escalation-chain.ts). */
  escalation: escalationSetting,
  /** How many times the whole chain runs again while nobody acknowledged; left out: 0. */
  escalationRepeat: optionalNumberSetting({ min: 0, max: MAX_ESCALATION_REPEAT, int: true }),
});

export type CommonSettingsShape = ReturnType<typeof buildCommonSettings>;
export type CommonSettings = z.output<z.ZodObject<CommonSettingsShape>>;

/**
 * Wraps an object schema so that its input is the platform's string map; unknown keys are refused.
 * The common keys (commonSettings) are added to every type's. The result satisfies `RuleEvaluator['settingsSchema']`.
 * It is built on its first parse: building the schemas of every rule type is most of what zod costs a cold start, and
 * a function meets a few types, or none (the sweep, the telegram bot).
 */
export function settingsMap<Shape extends z.ZodRawShape>(typeShape: () => Shape) {
  return z.lazy(() => stringMapSchema(typeShape()));
}

function stringMapSchema<Shape extends z.ZodRawShape>(typeShape: Shape) {
  const shape = { ...typeShape, ...commonSettings() };
  const object = z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown setting (known: ${Object.keys(shape).join(', ')})` : undefined),
  });
  // Every field reads a string (or its absence), which the record check before it guarantees.
  return z
    .record(z.string(), z.string())
    .check((payload) => {
      const { value } = payload;
      // a zone mode alone would be saved and do nothing: the condition needs its zones
      if (value.zoneMode !== undefined && (value.zones ?? '').trim() === '')
        payload.issues.push({ code: 'custom', input: value, path: ['zones'], message: 'zoneMode needs the zones it applies to' });
      const chained = (value.escalation ?? '').trim() !== '';
      if (chained && Number(value.escalateAfter ?? 0) > 0)
        payload.issues.push({
          code: 'custom',
          input: value,
          path: ['escalation'],
          message: 'give escalation or escalateAfter with its targets (a chain of one level), not both',
        });
      if (!chained && Number(value.escalateAfter ?? 0) <= 0 && (value.escalationRepeat ?? '').trim() !== '')
        payload.issues.push({
          code: 'custom',
          input: value,
          path: ['escalationRepeat'],
          message: 'escalationRepeat needs escalation or escalateAfter',
        });
      // an escalation with nobody to go to would be saved and do nothing
      const escalates = Number(value.escalateAfter ?? 0) > 0;
      const targets = ['escalateUserIds', 'escalateTelegrams', 'escalateEmails'].some((key) => (value[key] ?? '').trim() !== '');
      if (escalates && !targets)
        payload.issues.push({
          code: 'custom',
          input: value,
          path: ['escalateAfter'],
          message: 'escalateAfter needs someone to escalate to: escalateUserIds, escalateTelegrams or escalateEmails',
        });
      // and a threshold without an escalation would be saved and do nothing
      if (!escalates && !chained && (value.escalateMinSeverity ?? '').trim() !== '')
        payload.issues.push({
          code: 'custom',
          input: value,
          path: ['escalateMinSeverity'],
          message: 'escalateMinSeverity needs escalation or escalateAfter',
        });
    })
    .pipe(object as unknown as z.ZodType<z.output<typeof object>, Record<string, string>>);
}
