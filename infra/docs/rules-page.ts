import type { RuleType } from '../../shared/schemas/notification';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import { SETTINGS_REFERENCE } from '../../shared/rules/settings-reference';
import { commonSettingsMarkdown, severityMarkdown, typeSettingsMarkdown } from '../../shared/api/settings-markdown';

/**
 * The generated regions of docs/rules.md: `<!-- generated:settings:common -->`, one
 * `<!-- generated:settings:type=<n> -->` per rule type, `<!-- generated:settings:events -->` (the event kinds of
 * each type) and `<!-- generated:settings:severity -->` (each type's default severity), each closed by
 * `<!-- /generated -->`.
 * Everything outside them is written by hand and left as it is.
 */
/** Every rule type the registry accepts. */
export const DOCUMENTED_RULE_TYPES = Object.keys(RULE_EVALUATORS).map(Number) as RuleType[];

const REGION = /(<!-- generated:settings:(common|events|severity|type=(\d+)) -->\n)[\s\S]*?(<!-- \/generated -->)/g;

/** The event kinds each type raises, as the alerts, webhook payloads and previews name them. */
function eventsMarkdown(): string {
  const rows = DOCUMENTED_RULE_TYPES.map((type) => `| ${type} | ${SETTINGS_REFERENCE[type].name} | ${SETTINGS_REFERENCE[type].events} |`);
  return ['| type | name | events |', '|---|---|---|', ...rows].join('\n');
}

function regionContent(name: string, type: string | undefined): string {
  if (name === 'common') return commonSettingsMarkdown();
  if (name === 'events') return eventsMarkdown();
  if (name === 'severity') return severityMarkdown();
  const ruleType = Number(type) as RuleType;
  if (!DOCUMENTED_RULE_TYPES.includes(ruleType)) throw new Error(`docs/rules.md has a settings region for type ${type}, which no rule type is`);
  return typeSettingsMarkdown(ruleType);
}

/** The page with every generated region rewritten from the settings reference. Fails when a region is missing. */
export function generateRulesPage(page: string): string {
  const seen = new Set<string>();
  const generated = page.replace(REGION, (_match, open: string, name: string, type: string | undefined, close: string) => {
    seen.add(name);
    return `${open}\n${regionContent(name, type)}\n\n${close}`;
  });
  const missing = ['common', 'events', 'severity', ...DOCUMENTED_RULE_TYPES.map((type) => `type=${type}`)].filter((name) => !seen.has(name));
  if (missing.length > 0) throw new Error(`docs/rules.md lacks the generated regions ${missing.join(', ')}`);
  return generated;
}
