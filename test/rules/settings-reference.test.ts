import { describe, expect, it } from 'vitest';
import { RULE_EVALUATORS } from '../../shared/rules/registry';
import { COMMON_SETTINGS_REFERENCE, SETTINGS_REFERENCE } from '../../shared/rules/settings-reference';
import { settingsProblems } from '../../shared/rules/rule-validation';
import type { RuleType } from '../../shared/schemas/notification';

/** The documented settings are the schemas' settings: same keys, same defaults. */
describe('settings reference', () => {
  const types = Object.keys(RULE_EVALUATORS).map(Number) as RuleType[];

  it('documents every supported type', () => {
    expect(
      Object.keys(SETTINGS_REFERENCE)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual(types.sort((a, b) => a - b));
  });

  it.each(types)('type %i: its example is valid and every documented key is one the schema knows', (type) => {
    const reference = SETTINGS_REFERENCE[type];
    expect(settingsProblems(type, reference.example)).toEqual([]);
    for (const setting of reference.settings) {
      const problems = settingsProblems(type, { ...reference.example, [setting.key]: setting.default ?? '1' });
      expect(problems.filter((problem) => /unknown setting/.test(problem.message))).toEqual([]);
    }
  });

  // a chain (escalation) and the one-level escalation it replaces (escalateAfter) exclude each other: each is tried with the rest
  const CHAIN_KEYS = ['escalation', 'escalationRepeat'];
  const example = (setting: (typeof COMMON_SETTINGS_REFERENCE)[number]) => [setting.key, setting.example ?? 'Vehicle {{vehicleName}}'];
  it.each(types)('type %i: takes the common keys too', (type) => {
    const common = Object.fromEntries(COMMON_SETTINGS_REFERENCE.filter((setting) => !CHAIN_KEYS.includes(setting.key)).map(example));
    expect(settingsProblems(type, { ...SETTINGS_REFERENCE[type].example, ...common })).toEqual([]);
    const chained = Object.fromEntries(COMMON_SETTINGS_REFERENCE.filter((setting) => setting.key !== 'escalateAfter').map(example));
    expect(settingsProblems(type, { ...SETTINGS_REFERENCE[type].example, ...chained })).toEqual([]);
    expect(
      settingsProblems(type, { ...SETTINGS_REFERENCE[type].example, ...common, escalation: chained.escalation! }).map((problem) => problem.path),
    ).toEqual(['settings.escalation']);
  });

  it.each(types)('type %i: a key the reference does not list is refused', (type) => {
    expect(settingsProblems(type, { ...SETTINGS_REFERENCE[type].example, notASetting: '1' }).map((problem) => problem.path)).toEqual([
      'settings.notASetting',
    ]);
  });

  it.each(types)('type %i: each documented default is the value used when the key is left out', (type) => {
    const reference = SETTINGS_REFERENCE[type];
    const schema = RULE_EVALUATORS[type].settingsSchema;
    const leftOut = schema.parse(reference.example);
    const explicit = Object.fromEntries(
      reference.settings.filter((setting) => setting.default !== null).map((setting) => [setting.key, setting.default!]),
    );
    expect(schema.parse({ ...explicit, ...reference.example })).toEqual(leftOut);
  });
});
