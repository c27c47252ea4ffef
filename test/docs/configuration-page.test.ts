import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_PAGE, configurationPage } from '../../infra/docs/configuration';

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` writes from the configuration schemas', () => {
    const committed = readFileSync(CONFIGURATION_PAGE, 'utf8');
    expect(committed, 'docs/configuration.md is out of date: run `npm run docs:config`').toBe(configurationPage());
  });

  it('lists every variable of every function and every CDK context key', () => {
    const page = configurationPage();
    for (const name of [
      'WEBHOOK_RETRY_BASE_SECONDS',
      'DELIVERIES_MAX_RECEIVE_COUNT',
      'VEHICLE_CLOCK',
      'OUTBOX_MAX_ATTEMPTS',
      'LIMIT_RULES_PER_CLIENT',
      'TEMPLATES_DIR',
    ]) {
      expect(page).toContain(`| \`${name}\` |`);
    }
    for (const key of ['stackName', 'geocoding', 'vehicleClock', 'sesMaxSendRate']) expect(page).toContain(`| \`${key}\` |`);
    expect(page).toMatch(/\| `WEBHOOK_RETRY_BASE_SECONDS` \| number ≥ 0 \| `30` \| Base of the jittered/);
  });
});
