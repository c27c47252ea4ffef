import type { Alert } from '../schemas/alert';
import type { RuleEvent } from '../schemas/rule-event';
import { SEVERITIES, type Severity } from '../schemas/severity';
import { RULE_TYPES, type RuleType, type StoredRule } from '../schemas/notification';
import { ALARM_KINDS, type AlarmKind } from './device-alarm';
import type { EventKind } from './event-kinds';
import { commonSettings } from './settings';

/**
 * How much an alert matters. A rule's `settings.severity` decides for all its alerts; left out, the type's default
 * below does (a device alarm's, by the alarms it names). The severity is decided once, when the alert is raised,
 * and stored with it. settings-reference.ts writes these defaults into docs/rules.md and the OpenAPI document.
 */

/** Each type's severity when its rule leaves `settings.severity` out. */
export const TYPE_SEVERITY: Readonly<Record<RuleType, Severity>> = {
  [RULE_TYPES.geozone]: 'info',
  [RULE_TYPES.speeding]: 'warning',
  // a drain is how fuel theft shows
  [RULE_TYPES.drain]: 'critical',
  [RULE_TYPES.fuelling]: 'info',
  [RULE_TYPES.panic]: 'critical',
  [RULE_TYPES.connectionLoss]: 'warning',
  [RULE_TYPES.discreteSensor]: 'info',
  [RULE_TYPES.analogSensor]: 'warning',
  [RULE_TYPES.address]: 'info',
  [RULE_TYPES.idle]: 'info',
  [RULE_TYPES.maintenance]: 'info',
  [RULE_TYPES.parking]: 'info',
  [RULE_TYPES.movement]: 'warning',
  [RULE_TYPES.continuousDriving]: 'warning',
  // an alert that names no alarm (a limit notice); each alarm has its own below
  [RULE_TYPES.deviceAlarm]: 'warning',
};

/** A device alarm's severity by alarm: what points to a crash or a theft is critical. */
export const ALARM_SEVERITY: Readonly<Record<AlarmKind, Severity>> = {
  crash: 'critical',
  powerCut: 'critical',
  tamper: 'critical',
  jamming: 'critical',
  lowBattery: 'warning',
  harshBraking: 'warning',
  harshAcceleration: 'warning',
  harshCornering: 'warning',
};

/** Notices that an alerted episode is over: good news, `info` whatever the rule's severity. */
export const EPISODE_END_KINDS: readonly EventKind[] = ['cleared', 'connectionRestored', 'parkingEnded'];

const isEpisodeEnd = (kind: string) => (EPISODE_END_KINDS as readonly string[]).includes(kind);

const highest = (severities: readonly Severity[]): Severity | undefined =>
  severities.reduce<Severity | undefined>(
    (high, next) => (high === undefined || SEVERITIES.indexOf(next) > SEVERITIES.indexOf(high) ? next : high),
    undefined,
  );

/** The alarms a device alarm event names (`alarms`, `crash, tamper`; or its first, `alarm`). */
function namedAlarms(values: RuleEvent['values']): AlarmKind[] {
  const text = typeof values.alarms === 'string' ? values.alarms : typeof values.alarm === 'string' ? values.alarm : '';
  return text
    .split(',')
    .map((name) => name.trim())
    .filter((name): name is AlarmKind => (ALARM_KINDS as readonly string[]).includes(name));
}

/**
 * The severity a type gives an event when its rule leaves `settings.severity` out; `warning` for a type not
 * known (any more).
 */
export function defaultSeverity(type: number, event: Pick<RuleEvent, 'kind' | 'values'>): Severity {
  if (isEpisodeEnd(event.kind)) return 'info';
  const byType = (TYPE_SEVERITY as Partial<Record<number, Severity>>)[type] ?? 'warning';
  if (type !== RULE_TYPES.deviceAlarm) return byType;
  return highest(namedAlarms(event.values).map((alarm) => ALARM_SEVERITY[alarm])) ?? byType;
}

/** The severity of an alert the rule raises for the event, as it is stored with the alert. */
export function eventSeverity(rule: Pick<StoredRule, 'type' | 'settings'>, event: Pick<RuleEvent, 'kind' | 'values'>): Severity {
  if (isEpisodeEnd(event.kind)) return 'info';
  return commonSettings().severity.safeParse(rule.settings.severity).data ?? defaultSeverity(rule.type, event);
}

/**
 * An alert's severity: the one it was raised with. An alert raised before severities has none, and reads as its
 * type's default for its event, never as its rule says now (the rule may have changed since).
 */
export function severityOf(alert: Pick<Alert, 'severity' | 'ruleType' | 'event'>): Severity {
  return alert.severity ?? defaultSeverity(alert.ruleType, alert.event);
}
