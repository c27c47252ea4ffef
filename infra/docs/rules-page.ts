import type { RuleType } from '../../shared/schemas/notification';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import { commonSettingsMarkdown, typeSettingsMarkdown } from '../../shared/rules/settings-reference';

/**
 * The generated regions of docs/rules.md: `<!-- generated:settings:common -->` and one
 * `<!-- generated:settings:type=<n> -->` per rule type, each closed by `<!-- /generated -->`.
 * Everything outside them is written by hand and left as it is.
 */
/** Every rule type the registry accepts. */
export const DOCUMENTED_RULE_TYPES = Object.keys(RULE_EVALUATORS).map(Number) as RuleType[];

const REGION = /(<!-- generated:settings:(common|type=(\d+)) -->\n)[\s\S]*?(<!-- \/generated -->)/g;

function regionContent(name: string, type: string | undefined): string {
  if (name === 'common') return commonSettingsMarkdown();
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
  const missing = ['common', ...DOCUMENTED_RULE_TYPES.map((type) => `type=${type}`)].filter((name) => !seen.has(name));
  if (missing.length > 0) throw new Error(`docs/rules.md lacks the generated regions ${missing.join(', ')}`);
  return generated;
}
