import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_PAGE, configurationPage } from '../../infra/docs/configuration';
import { adminConfigSchema } from '../../infra/admin/admin-config';
import { localAwsSchema, startEnvSchema } from '../../infra/local/start-config';

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` writes from the configuration schemas', () => {
    const committed = readFileSync(CONFIGURATION_PAGE, 'utf8');
    expect(committed, 'docs/configuration.md is out of date: run `npm run docs:config`').toBe(configurationPage());
  });

  it('lists every variable of every function and every CDK context key', () => {
    const page = configurationPage();
    for (const name of [
      'WEBHOOK_ALLOW_PRIVATE_TARGETS',
      'DELIVERIES_MAX_RECEIVE_COUNT',
      'VEHICLE_CLOCK',
      'OUTBOX_MAX_ATTEMPTS',
      'LIMIT_RULES_PER_CLIENT',
      'TEMPLATES_DIR',
    ]) {
      expect(page).toContain(`| \`${name}\` |`);
    }
    for (const key of ['stackName', 'geocoding', 'vehicleClock', 'sesMaxSendRate']) expect(page).toContain(`| \`${key}\` |`);
    expect(page).toMatch(/\| `DELIVERIES_MAX_RECEIVE_COUNT` \| whole number ≥ 1 \| `5` \| The deliveries queue's maxReceiveCount, a safety net/);
  });

  it('lists every variable of `npm start` and of the admin CLI in their own sections', () => {
    const page = configurationPage();
    const local = page.slice(page.indexOf('## Local stack'), page.indexOf('## Admin CLI'));
    const admin = page.slice(page.indexOf('## Admin CLI'));
    for (const name of [...Object.keys(startEnvSchema.shape), ...Object.keys(localAwsSchema.shape)]) expect(local).toContain(`| \`${name}\` |`);
    for (const name of Object.keys(adminConfigSchema.shape)) expect(admin).toContain(`| \`${name}\` |`);
    expect(local).toMatch(/\| `FLEETWATCH_SES_PORT` \| whole number ≥ 1 ≤ 65535 \| `8005` \|/);
    expect(admin).toMatch(/\| `INPUT_QUEUE_URL` \| text \| unset \| URL of the input queue/);
  });
});
