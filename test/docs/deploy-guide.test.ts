import { execSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { generateDeployPage } from '../../infra/docs/deploy-page';
import { DEPLOY_PARAMETERS } from '../../infra/constructs/deploy-parameters';
import { FleetwatchStack, PROJECT_ROOT } from '../../infra/stack';
import { API_BASE_PATH, apiEndpoint, apiUrlOf, KEY_DELETION_WINDOW_DAYS, SECRETS, STACK_TAG, TEARDOWN } from '../../infra/stack-facts';
import { USAGE } from '../../infra/admin/commands';
import { buildOpenApiDocument } from '../../shared/api/openapi';
import { apiRoutes } from '../../shared/api/routes';
import { webhookBodySchema, webhookUpdateSchema } from '../../shared/api/webhook-schemas';
import { RETRY_JITTER, retryScheduleText } from '../../shared/delivery/retry-backoff';
import { publicApiUrl } from '../../shared/delivery/links';

/**
 * The deploy guide and its neighbours, read as a new deployer reads them, against the code they describe: each
 * test here stands for a drift that once stopped a first deploy or misled its reader.
 */
const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), 'utf8');
const deployGuide = read('docs/deploy.md');
const docs = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(PROJECT_ROOT, 'docs')).flatMap((name) => (name.endsWith('.md') ? [`docs/${name}`] : [])),
];

type Resource = { Type: string; DeletionPolicy?: string; Properties?: Record<string, unknown> };

function template(): Record<string, Resource> {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new FleetwatchStack(app, 'FleetwatchGuide');
  return app.synth().getStackByName(stack.stackName).template.Resources as Record<string, Resource>;
}

/** The fenced bash blocks of a page. */
const bashBlocks = (markdown: string) => [...markdown.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1]!);

describe('docs/deploy.md', () => {
  const resources = template();

  it('has the parameter, context, output and teardown tables npm run docs:generate writes', () => {
    expect(generateDeployPage(deployGuide)).toBe(deployGuide);
    expect(() => generateDeployPage(deployGuide.replace('<!-- generated:deploy:context -->', ''))).toThrow(/context/);
  });

  it('starts with preflight, then deploy, then smoke', () => {
    const firstBlock = bashBlocks(deployGuide)[0]!;
    const order = ['npm run preflight', 'npx cdk deploy', 'npm run smoke'].map((command) => firstBlock.indexOf(command));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const sections = [...deployGuide.matchAll(/^## \d+\. (.*)$/gm)].map((match) => match[1]!);
    expect(sections.indexOf('Preflight')).toBeLessThan(sections.indexOf('Deploy'));
    expect(sections.indexOf('Deploy')).toBeLessThan(sections.indexOf('Smoke test'));
  });

  it('names every resource cdk destroy retains, and the cleanup script removes each', async () => {
    const { CLEANUP_KINDS } = await import('../../infra/cleanup/kinds');
    const retainedTypes = new Set(
      Object.values(resources)
        .filter((resource) => resource.DeletionPolicy === 'Retain' || resource.DeletionPolicy === 'RetainExceptOnCreate')
        .map((resource) => resource.Type),
    );
    expect(retainedTypes.size).toBeGreaterThan(0);
    for (const type of retainedTypes) {
      const row = TEARDOWN.find((candidate) => candidate.types.includes(type));
      expect(row?.retained, type).toBe(true);
      expect(CLEANUP_KINDS, type).toContain(type);
      expect(deployGuide, type).toContain(`| ${row!.what} |`);
    }
    // a row that says retained is retained, so the table never overstates what is left
    for (const row of TEARDOWN.filter((candidate) => candidate.retained)) {
      for (const type of row.types) expect(retainedTypes, type).toContain(type);
    }
  });

  it('retains no KMS key: each is scheduled for deletion, which bills nothing', () => {
    const keys = Object.values(resources).filter((resource) => resource.Type === 'AWS::KMS::Key');
    expect(keys.length).toBe(2);
    for (const key of keys) {
      expect(key.DeletionPolicy).toBe('Delete');
      expect(key.Properties?.PendingWindowInDays).toBe(KEY_DELETION_WINDOW_DAYS);
    }
  });

  it('names each of the stack’s secrets where it says what the stack builds and what teardown does', () => {
    const secrets = Object.entries(resources).filter(([, resource]) => resource.Type === 'AWS::SecretsManager::Secret');
    expect(secrets.map(([id]) => Object.keys(SECRETS).find((name) => id.startsWith(name)) ?? id).sort()).toEqual(Object.keys(SECRETS).sort());
    const builds = /^## What the stack builds\n([\s\S]*?)^## /m.exec(deployGuide)![1]!;
    const teardown = /^## Tearing down\n([\s\S]*?)^## /m.exec(deployGuide)![1]!;
    for (const name of Object.keys(SECRETS).filter((name) => name !== 'Telegram')) {
      expect(builds, name).toContain(`\`${name}\``);
      expect(teardown, name).toContain(name);
    }
    expect(builds).toContain('<stack name>/telegram');
  });

  it('tags every resource that can outlive the stack with the stack’s name, for the cleanup to find', () => {
    for (const [id, resource] of Object.entries(resources)) {
      if (!TEARDOWN.some((row) => row.types.includes(resource.Type))) continue;
      const tags = (resource.Properties?.Tags ?? []) as { Key: string; Value: unknown }[];
      expect(
        tags.find((tag) => tag.Key === STACK_TAG),
        id,
      ).toEqual({ Key: STACK_TAG, Value: 'FleetwatchGuide' });
    }
  });

  it('summarizes every alarm of the stack in its alarm section', () => {
    const section = /^## Alarms and the runbook\n([\s\S]*?)^## /m.exec(deployGuide)![1]!;
    const alarmIds = Object.entries(resources)
      .filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm')
      .map(([id]) => id.replace(/^Monitoring/, '').replace(/[0-9A-F]{8}$/, ''));
    expect(alarmIds.length).toBeGreaterThan(10);
    const families = [/^[A-Z][a-z]+ErrorsAlarm$/, /^[A-Z][a-zA-Z]+ThrottlesAlarm$/];
    for (const alarm of alarmIds) {
      const family = /TableThrottlesAlarm$/.test(alarm)
        ? '`<Table>TableThrottlesAlarm`'
        : families.some((pattern) => pattern.test(alarm)) && !section.includes(`\`${alarm}\``)
          ? alarm.endsWith('ErrorsAlarm')
            ? '`<Function>ErrorsAlarm`'
            : '`<Function>ThrottlesAlarm`'
          : `\`${alarm}\``;
      expect(section, alarm).toContain(family);
    }
  });

  it('lists every command its shell blocks run among the prerequisites, or as a shell builtin', () => {
    const builtins = new Set(['export', 'read', 'sleep', 'for', 'do', 'done', 'printf', 'cd', 'git', 'cat', 'head', 'then', 'fi', 'if']);
    const prerequisites = /^## Prerequisites\n([\s\S]*?)^## /m.exec(deployGuide)![1]!;
    const named = new Set([...prerequisites.matchAll(/`([a-z][\w-]*)`/g)].map((match) => match[1]!));
    const known = new Set([...builtins, ...named, 'aws', 'npm', 'npx', 'curl', 'date']);
    const used = new Set<string>();
    for (const block of bashBlocks(deployGuide)) {
      const commands = block
        .replace(/\\\n/g, ' ')
        .split('\n')
        .flatMap((line) => line.replace(/#.*$/, '').split(/\||&&|;|\$\(|<\(/))
        .map((part) => part.trim().replace(/^[A-Z_]+=("[^"]*"|\S*)\s*/, ''))
        .filter((part) => /^[a-z]/.test(part) && !part.startsWith('"'));
      for (const command of commands) used.add(command.split(/\s/)[0]!);
    }
    expect([...used].filter((command) => !known.has(command))).toEqual([]);
    // the CLI and jq must be prerequisites by name: they are not on a fresh machine
    for (const tool of ['jq', 'AWS CLI']) expect(prerequisites).toContain(tool);
    expect(used).toContain('jq');
  });
});

describe('the API base URL', () => {
  const deployedApiUrl = apiUrlOf('https://abc123.execute-api.eu-central-1.amazonaws.com/');
  const document = buildOpenApiDocument(apiRoutes);

  it('is the ApiUrl output: the base a request path is appended to, ending in /api/v3 once', () => {
    expect(deployedApiUrl).toBe('https://abc123.execute-api.eu-central-1.amazonaws.com/api/v3');
    expect(apiUrlOf('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000/api/v3');
    expect(apiEndpoint(deployedApiUrl, '/auth/login')).toBe('https://abc123.execute-api.eu-central-1.amazonaws.com/api/v3/auth/login');
    expect(apiEndpoint(`${deployedApiUrl}/`, '/api/v3/auth/login')).toBe(apiEndpoint(deployedApiUrl, '/auth/login'));
  });

  it('makes the links of e-mails from the ApiUrl the stack hands the deliver function', () => {
    expect(`${publicApiUrl({ PUBLIC_API_URL: deployedApiUrl })}email/confirm/t0`).toBe(apiEndpoint(deployedApiUrl, '/email/confirm/t0'));
  });

  it('gives OpenAPI servers that, joined with the document’s paths, are the deployed URLs', () => {
    const servers = document.servers ?? [];
    expect(servers.length).toBeGreaterThan(0);
    for (const server of servers) {
      const withDefaults = Object.entries(server.variables ?? {}).reduce(
        (url, [name, variable]) => url.replace(`{${name}}`, String(variable.default)),
        server.url,
      );
      const deployedOrigin = deployedApiUrl.slice(0, -`/${API_BASE_PATH}`.length);
      const withDeployed = Object.keys(server.variables ?? {}).reduce((url, name) => url.replace(`{${name}}`, deployedOrigin), server.url);
      for (const path of Object.keys(document.paths ?? {})) {
        expect(`${withDefaults}${path}`.match(/\/api\/v3\//g), path).toHaveLength(1);
        expect(`${withDeployed}${path}`).toBe(apiEndpoint(deployedApiUrl, path));
      }
    }
  });

  it('is never followed by /api/v3 again in the docs', () => {
    for (const page of docs) {
      const doubled = read(page)
        .split('\n')
        .filter((line) => /(\$\{?API\w*\}?|\$ApiUrl|<ApiUrl>|--output text\))\/api\/v3/.test(line) || /`ApiUrl`, then `\/api\/v3`/.test(line));
      expect(doubled, page).toEqual([]);
    }
  });
});

describe('the docs around the guide', () => {
  it('name only admin commands and npm scripts that exist', () => {
    const commands = new Set([...USAGE.matchAll(/^ {2}([a-z][a-z-]+) /gm)].map((match) => match[1]!));
    const scripts = new Set(Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts));
    for (const page of docs) {
      const text = read(page);
      for (const [, command] of text.matchAll(/npm run admin -- (?:--stack \S+ )?(?:--region \S+ )?([a-z][a-z-]+)/g)) {
        expect(commands, `${page}: admin ${command}`).toContain(command);
      }
      for (const [, script] of text.matchAll(/npm run (?:-s )?([a-z][\w:-]*\w)/g)) expect(scripts, `${page}: npm run ${script}`).toContain(script);
    }
  });

  it('name only functions and fields the code has, in the folders’ own READMEs', () => {
    const sources = execSync("git ls-files '*.ts' ':!test/**'", { cwd: PROJECT_ROOT, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((file) => read(file))
      .join('\n');
    for (const page of ['shared/rules/README.md', 'shared/api/README.md']) {
      const identifiers = new Set([...read(page).matchAll(/`([a-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)(?:\(\))?`/g)].map((match) => match[1]!));
      expect(identifiers.size).toBeGreaterThan(10);
      expect(
        [...identifiers].filter((identifier) => !sources.includes(identifier)),
        page,
      ).toEqual([]);
    }
  });

  it('give the webhook bodies with every field their schemas take', () => {
    const api = read('docs/api.md');
    const paragraph = /A webhook endpoint has no\s+replace:[\s\S]*?\n\n/.exec(api)?.[0] ?? '';
    const [create, update] = paragraph.split('PUT /api/v3/webhooks/{id}');
    for (const field of Object.keys(webhookBodySchema.shape)) expect(create, field).toContain(`\`${field}\``);
    for (const field of Object.keys(webhookUpdateSchema.shape)) expect(update, field).toContain(`\`${field}\``);
  });

  it('state the retry schedule as the code draws it, jitter included', () => {
    const document = buildOpenApiDocument(apiRoutes);
    const receiveAlert = JSON.stringify(document.webhooks ?? {});
    const createWebhook = JSON.stringify(document.paths?.['/api/v3/webhooks']?.post ?? {});
    for (const text of [receiveAlert, createWebhook]) {
      expect(text).toContain('5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h');
      expect(text).toContain(`±${RETRY_JITTER * 100}%`);
      expect(text).toContain('8 attempts');
    }
    expect(retryScheduleText()).toBe('5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h');
    expect(RETRY_JITTER).toBe(0.2);
  });

  it('list the stack parameters in docs/configuration.md, as the README says', () => {
    expect(read('README.md')).toMatch(/configuration\.md\) \| look up every environment variable, context key and stack parameter/);
    const configuration = read('docs/configuration.md');
    for (const name of Object.keys(DEPLOY_PARAMETERS)) expect(configuration, name).toContain(`| \`${name}\` |`);
  });

  it('print no test counts or run times, which go stale with every commit', () => {
    for (const page of ['README.md', 'CONTRIBUTING.md']) {
      const text = read(page);
      expect(text.match(/\b\d[\d,]* tests\b|~\s?\d+\s?(min|s)\b|\d+ files\)/g), page).toBeNull();
    }
  });
});
