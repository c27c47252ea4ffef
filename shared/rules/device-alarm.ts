import * as z from 'zod';
import type { RuleEvent } from '../schemas/alert';
import { RULE_TYPES } from '../schemas/notification';
import type { TerminalMessage } from '../schemas/terminal-message';
import { NO_EVENTS, deviceMs, messageEvent, numericParameter, switchParameter } from './message-values';
import { numberSetting, parameterKeySetting, settingsMap } from './settings';
import type { RuleEvaluator } from './types';
import type { TypeReference } from './reference';

/** The alarms a terminal reports, most serious first: an alert naming several leads with the first. */
export const ALARM_KINDS = ['crash', 'powerCut', 'tamper', 'jamming', 'lowBattery', 'harshBraking', 'harshAcceleration', 'harshCornering'] as const;
export type AlarmKind = (typeof ALARM_KINDS)[number];

/** Alarms a terminal keeps reporting while they last; the others are single happenings. */
const LASTING: ReadonlySet<AlarmKind> = new Set<AlarmKind>(['powerCut', 'tamper', 'jamming', 'lowBattery']);

const alarmsSetting = z
  .string()
  .default(ALARM_KINDS.join(','))
  .transform((text, ctx) => {
    const chosen = new Set<AlarmKind>();
    for (const name of text
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)) {
      const kind = ALARM_KINDS.find((known) => known.toLowerCase() === name.toLowerCase());
      if (kind === undefined) {
        ctx.addIssue({ code: 'custom', message: `"${name}" is not an alarm (known: ${ALARM_KINDS.join(', ')})` });
        return z.NEVER;
      }
      chosen.add(kind);
    }
    if (chosen.size === 0) {
      ctx.addIssue({ code: 'custom', message: 'must name at least one alarm' });
      return z.NEVER;
    }
    return ALARM_KINDS.filter((kind) => chosen.has(kind));
  });

/** `harshCodes`: the harsh-driving parameter's values for acceleration, braking and cornering, in that order. */
const harshCodesSetting = z
  .string()
  .default('1,2,3')
  .transform((text, ctx) => {
    const parts = text.split(',').map((part) => part.trim());
    if (parts.length !== 3 || parts.some((part) => !/^\d{1,9}$/.test(part))) {
      ctx.addIssue({ code: 'custom', message: 'must be three whole numbers: the values of harsh acceleration, braking and cornering, e.g. 1,2,3' });
      return z.NEVER;
    }
    const [harshAcceleration, harshBraking, harshCornering] = parts.map(Number) as [number, number, number];
    if (new Set([harshAcceleration, harshBraking, harshCornering]).size !== 3) {
      ctx.addIssue({ code: 'custom', message: 'the three values must differ' });
      return z.NEVER;
    }
    return { harshAcceleration, harshBraking, harshCornering };
  });

/** Defaults follow Teltonika FMB AVL I/O elements (see docs/rules.md). */
export const deviceAlarmSettingsSchema = settingsMap(() => ({
  /** Which alarms raise alerts. */
  alarms: alarmsSetting,
  /** Digital: on while the terminal is cut off from external power. */
  powerParameter: parameterKeySetting('io252'),
  /** External voltage, and the reading below which power counts as cut (in the parameter's unit, mV for io66). */
  voltageParameter: parameterKeySetting('io66'),
  minVoltage: numberSetting(6_000, { min: 0, max: 1_000_000 }),
  /** Backup battery voltage, and the reading below which it is low (mV for io67). */
  batteryParameter: parameterKeySetting('io67'),
  minBattery: numberSetting(3_500, { min: 0, max: 1_000_000 }),
  /** Digital: on while the case is open or the terminal is tampered with. */
  tamperParameter: parameterKeySetting('tamper'),
  /** Digital: on while GNSS/GSM jamming is detected. */
  jammingParameter: parameterKeySetting('io249'),
  /** Harsh driving type, and its values for acceleration, braking and cornering. */
  harshParameter: parameterKeySetting('io253'),
  harshCodes: harshCodesSetting,
  /** Non-zero on a crash. */
  crashParameter: parameterKeySetting('io247'),
  /** Seconds within which readings of one alarm belong to the same event (resent records, a crash trace). */
  repeatWindow: numberSetting(60, { min: 0, max: 86_400 }),
}));

export type DeviceAlarmSettings = z.infer<typeof deviceAlarmSettingsSchema>;

type Span = [number, number];

/** What is known of one alarm kind. Times are epoch ms of device time. */
export interface AlarmMemory {
  /** Recent events as [first, last] times of the readings that showed them, in the order they were learnt. */
  events: Span[];
  /** A lasting alarm whose latest event no reading has shown over yet. */
  on: boolean;
}

export type DeviceAlarmState = Partial<Record<AlarmKind, AlarmMemory>>;

/** Events remembered per kind, so that resent and late readings of them are recognised. */
const REMEMBERED_EVENTS = 8;

/**
 * What the message says of one alarm: the parameter that shows it on, null when it reads off, undefined when
 * the message has no readable value for it. Nothing is allocated: most messages read every alarm off.
 */
type Reading = string | null | undefined;

function digital(message: TerminalMessage, parameter: string): Reading {
  const on = switchParameter(message, parameter);
  return on === undefined ? undefined : on ? parameter : null;
}

function below(message: TerminalMessage, parameter: string, threshold: number): Reading {
  const value = numericParameter(message, parameter);
  return value === undefined ? undefined : value < threshold ? parameter : null;
}

function reading(settings: DeviceAlarmSettings, kind: AlarmKind, message: TerminalMessage): Reading {
  switch (kind) {
    case 'powerCut': {
      const cut = digital(message, settings.powerParameter);
      const voltage = below(message, settings.voltageParameter, settings.minVoltage);
      return cut || voltage || (cut === undefined ? voltage : cut);
    }
    case 'lowBattery':
      return below(message, settings.batteryParameter, settings.minBattery);
    case 'tamper':
      return digital(message, settings.tamperParameter);
    case 'jamming':
      return digital(message, settings.jammingParameter);
    case 'crash':
      return digital(message, settings.crashParameter);
    case 'harshAcceleration':
    case 'harshBraking':
    case 'harshCornering': {
      const value = numericParameter(message, settings.harshParameter);
      if (value === undefined) return undefined;
      return value === settings.harshCodes[kind] ? settings.harshParameter : null;
    }
  }
}

/** The remembered event with the latest reading. */
function latestEvent(memory: AlarmMemory | undefined): Span | undefined {
  return memory?.events.reduce<Span | undefined>((latest, span) => (latest === undefined || span[1] > latest[1] ? span : latest), undefined);
}

function alarmEvent(message: TerminalMessage, raised: { kind: AlarmKind; parameter: string }[], late: boolean): RuleEvent {
  const [first] = raised;
  return messageEvent('deviceAlarm', message, {
    alarm: first!.kind,
    alarms: raised.map(({ kind }) => kind).join(', '),
    parameter: first!.parameter,
    value: message.parameters[first!.parameter]!.trim(),
    ...(late ? { late: true } : {}),
  });
}

function remember(memory: AlarmMemory | undefined, span: Span, on: boolean): AlarmMemory {
  return { events: [...(memory?.events ?? []), span].slice(-REMEMBERED_EVENTS), on };
}

/**
 * One `deviceAlarm` per alarm event. Readings of one kind belong to the same event when they come within
 * `repeatWindow` seconds of each other (a record resent by the terminal, the records of a crash trace), and for
 * a lasting alarm (power cut, low battery, tamper, jamming) as long as no reading has shown it over. Several
 * alarms starting with one message raise one alert naming all of them.
 *
 * A late (out-of-order) reading of an alarm alerts on its own (`values.late`) unless it lies within
 * `repeatWindow` of an event already known (or inside a lasting alarm still on); late readings widen the event
 * they belong to, so the other late readings of it stay quiet. A redelivered message thus raises nothing new.
 */
export const deviceAlarmEvaluator: RuleEvaluator<DeviceAlarmSettings, DeviceAlarmState> = {
  type: RULE_TYPES.deviceAlarm,
  settingsSchema: deviceAlarmSettingsSchema,

  evaluate({ settings }, state, message) {
    let next = state;
    let raised: { kind: AlarmKind; parameter: string }[] | undefined;
    for (const kind of settings.alarms) {
      const read = reading(settings, kind, message);
      if (read === undefined) continue;
      const memory = state?.[kind];
      if (read === null) {
        if (memory?.on) next = { ...next, [kind]: { ...memory, on: false } };
        continue;
      }
      const time = deviceMs(message);
      const on = LASTING.has(kind);
      const latest = latestEvent(memory);
      if (latest !== undefined && (memory!.on || time - latest[1] <= settings.repeatWindow * 1000)) {
        const events = memory!.events.map((span): Span => (span === latest ? [latest[0], time] : span));
        next = { ...next, [kind]: { events, on } };
        continue;
      }
      next = { ...next, [kind]: remember(memory, [time, time], on) };
      (raised ??= []).push({ kind, parameter: read });
    }
    return { state: next, events: raised ? [alarmEvent(message, raised, false)] : NO_EVENTS };
  },

  evaluateStale({ settings }, state, message) {
    let next = state;
    let raised: { kind: AlarmKind; parameter: string }[] | undefined;
    const window = settings.repeatWindow * 1000;
    for (const kind of settings.alarms) {
      const read = reading(settings, kind, message);
      if (!read) continue;
      const time = deviceMs(message);
      const memory = state?.[kind];
      const latest = latestEvent(memory);
      if (memory?.on && latest !== undefined && time >= latest[0] - window) continue;
      const known = memory?.events.find(([first, last]) => time >= first - window && time <= last + window);
      if (known === undefined) {
        next = { ...next, [kind]: remember(memory, [time, time], memory?.on ?? false) };
        (raised ??= []).push({ kind, parameter: read });
        continue;
      }
      if (time >= known[0] && time <= known[1]) continue;
      const events = memory!.events.map((span): Span => (span === known ? [Math.min(known[0], time), Math.max(known[1], time)] : span));
      next = { ...next, [kind]: { ...memory!, events } };
    }
    return { state: next, events: raised ? [alarmEvent(message, raised, true)] : NO_EVENTS };
  },
};

/** What the settings of type 16 mean and default to, for people (settings-reference.ts). */
export const deviceAlarmReference: TypeReference = {
  name: 'device alarm',
  events: 'deviceAlarm',
  settings: [
    {
      key: 'alarms',
      default: 'crash,powerCut,tamper,jamming,lowBattery,harshBraking,harshAcceleration,harshCornering',
      meaning: 'which alarms alert, separated by commas (any of the default list, any case)',
    },
    { key: 'powerParameter', default: 'io252', meaning: 'digital parameter, on while the terminal is cut off from external power (powerCut)' },
    { key: 'voltageParameter', default: 'io66', meaning: 'external voltage parameter; a reading below minVoltage is a power cut too' },
    {
      key: 'minVoltage',
      default: '6000',
      meaning: "external voltage below which power counts as cut, in the parameter's unit (mV for io66; 0–1000000)",
    },
    { key: 'batteryParameter', default: 'io67', meaning: 'backup battery voltage parameter (lowBattery)' },
    { key: 'minBattery', default: '3500', meaning: "battery voltage below which it is low, in the parameter's unit (mV for io67; 0–1000000)" },
    {
      key: 'tamperParameter',
      default: 'tamper',
      meaning: 'digital parameter, on while the case is open or the terminal is tampered with (tamper)',
    },
    { key: 'jammingParameter', default: 'io249', meaning: 'digital parameter, on while jamming is detected (jamming)' },
    { key: 'harshParameter', default: 'io253', meaning: 'harsh driving type parameter (harshAcceleration, harshBraking, harshCornering)' },
    {
      key: 'harshCodes',
      default: '1,2,3',
      meaning: 'values of harshParameter meaning harsh acceleration, braking and cornering, in that order (three different whole numbers)',
      example: '1,2,3',
    },
    { key: 'crashParameter', default: 'io247', meaning: 'parameter that is non-zero on a crash (crash)' },
    {
      key: 'repeatWindow',
      default: '60',
      meaning: 'seconds within which readings of one alarm belong to the same event: a resent record or a crash trace alerts once (0–86400)',
    },
  ],
  constraints: [],
  example: {},
};
