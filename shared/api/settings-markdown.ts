import { SEVERITIES } from '../schemas/severity';
import { RULE_TYPES, type RuleType } from '../schemas/notification';
import type { SettingReference } from '../rules/reference';
import { COMMON_SETTINGS_REFERENCE, SETTINGS_REFERENCE } from '../rules/settings-reference';
import { ALARM_SEVERITY, TYPE_SEVERITY } from '../rules/severity';

/** The settings reference as Markdown: for the OpenAPI document here, and for docs/rules.md (infra/docs/rules-page.ts). */
const shownDefault = (value: string | null) => (value === null ? '—' : value === '' ? 'empty' : `\`${value}\``);
const row = (setting: SettingReference) => `| \`${setting.key}\` | ${shownDefault(setting.default)} | ${setting.meaning} |`;

const TABLE_HEAD = '| key | default | meaning |\n|---|---|---|';

/** The severity of a type's alerts when its rule leaves `settings.severity` out, in words. */
export function typeSeverityMarkdown(type: RuleType): string {
  const lead = 'Severity when `settings.severity` is left out:';
  if (type !== RULE_TYPES.deviceAlarm) return `${lead} \`${TYPE_SEVERITY[type]}\`.`;
  const byLevel = [...SEVERITIES]
    .reverse()
    .map((level) => [level, Object.keys(ALARM_SEVERITY).filter((alarm) => ALARM_SEVERITY[alarm as keyof typeof ALARM_SEVERITY] === level)] as const)
    .filter(([, alarms]) => alarms.length > 0)
    .map(([level, alarms]) => `\`${level}\` for ${alarms.join(', ')}`);
  return `${lead} by the alarm, the most severe of those an alert names: ${byLevel.join('; ')}; otherwise (an alert that names none) \`${TYPE_SEVERITY[type]}\`.`;
}

/** Each type's default severity as a Markdown table. */
export function severityMarkdown(): string {
  const rows = Object.entries(SETTINGS_REFERENCE).map(([type, reference]) => {
    const ruleType = Number(type) as RuleType;
    const severity = ruleType === RULE_TYPES.deviceAlarm ? 'by the alarm (below)' : `\`${TYPE_SEVERITY[ruleType]}\``;
    return `| ${type} | ${reference.name} | ${severity} |`;
  });
  return [
    '| type | name | severity when left out |',
    '|---|---|---|',
    ...rows,
    '',
    typeSeverityMarkdown(RULE_TYPES.deviceAlarm).replace('Severity', 'Device alarm (16) severity'),
  ].join('\n');
}

/** One type's settings as a Markdown table, followed by the rules between them and its default severity. */
export function typeSettingsMarkdown(type: RuleType): string {
  const reference = SETTINGS_REFERENCE[type];
  const constraints = reference.constraints.length > 0 ? `\n\nAlso: ${reference.constraints.join('; ')}.` : '';
  return `${TABLE_HEAD}\n${reference.settings.map(row).join('\n')}${constraints}\n\n${typeSeverityMarkdown(type)}`;
}

/** The keys every type takes, as a Markdown table. */
export function commonSettingsMarkdown(): string {
  return `${TABLE_HEAD}\n${COMMON_SETTINGS_REFERENCE.map(row).join('\n')}`;
}

/** The settings reference as Markdown, one section per type, for the OpenAPI document. */
export function settingsReferenceMarkdown(): string {
  return `${Object.entries(SETTINGS_REFERENCE)
    .map(
      ([type, reference]) => `**type ${type}: ${reference.name}** (events ${reference.events})\n\n${typeSettingsMarkdown(Number(type) as RuleType)}`,
    )
    .join('\n\n')}\n\n**every type** also takes\n\n${commonSettingsMarkdown()}`;
}
