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

  it.each(types)('type %i: takes the common keys too', (type) => {
    const common = Object.fromEntries(COMMON_SETTINGS_REFERENCE.map((setting) => [setting.key, setting.example ?? 'Vehicle {{vehicleName}}']));
    expect(settingsProblems(type, { ...SETTINGS_REFERENCE[type].example, ...common })).toEqual([]);
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
