import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCUMENTED_RULE_TYPES, generateRulesPage } from '../../infra/docs/rules-page';
import { EVENT_KINDS } from '../../shared/rules/event-kinds';
import { ruleProblems } from '../../shared/rules/rule-validation';
import { notificationBodySchema } from '../../shared/schemas/notification';

const page = readFileSync(join(import.meta.dirname, '../../docs/rules.md'), 'utf8');

/** The page's `## <type> — <name>` sections, by type. */
function typeSections(markdown: string): Map<number, string> {
  const sections = new Map<number, string>();
  for (const [, type, body] of markdown.matchAll(/^## (\d+) — .*\n([\s\S]*?)(?=^## |(?![\s\S]))/gm)) sections.set(Number(type), body!);
  return sections;
}

describe('docs/rules.md', () => {
  it('has the settings tables npm run docs:generate writes', () => {
    expect(generateRulesPage(page)).toBe(page);
  });

  it('is refused by the generator when a settings region is missing', () => {
    expect(() => generateRulesPage(page.replace('<!-- generated:settings:type=7 -->', ''))).toThrow(/type=7/);
  });

  it('has one section per rule type the registry accepts, each with a settings region, an example, the alert and its files', () => {
    const sections = typeSections(page);
    expect([...sections.keys()].sort((a, b) => a - b)).toEqual([...DOCUMENTED_RULE_TYPES].sort((a, b) => a - b));
    for (const [type, body] of sections) {
      expect(body, `type ${type}`).toContain(`<!-- generated:settings:type=${type} -->`);
      for (const heading of ['### Example', '### Alert', '### Files']) expect(body, `type ${type}`).toContain(heading);
    }
  });

  it('gives each type an example request the API accepts as a working rule of that type', () => {
    for (const [type, body] of typeSections(page)) {
      const json = /```json\n([\s\S]*?)\n```/.exec(body)?.[1];
      expect(json, `type ${type}`).toBeDefined();
      const rule = notificationBodySchema.strict().parse(JSON.parse(json!));
      expect(rule.type).toBe(type);
      expect(ruleProblems(rule), `type ${type}`).toEqual([]);
    }
  });

  it('names every file it points to, and every event kind', () => {
    for (const [, path] of page.matchAll(/`((?:shared|test)\/[\w/.-]+\.(?:ts|eta))`/g)) {
      expect(() => readFileSync(join(import.meta.dirname, '../..', path!)), path).not.toThrow();
    }
    const events = /^## Event names\n([\s\S]*)$/m.exec(page)?.[1] ?? '';
    expect([...events.matchAll(/^- `(\w+)`$/gm)].map(([, kind]) => kind)).toEqual([...EVENT_KINDS]);
  });
});
