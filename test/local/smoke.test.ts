import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../infra/local/runtime';
import { DEMO } from '../../infra/local/demo';
import { demoFleet } from '../../infra/local/simulator';
import { MAX_RETRIES_AFTER_429, SESSION_REQUEST_SPACING_MS, type Fetch } from '../../infra/smoke/api-client';
import type { Clock } from '../../infra/smoke/clock';
import { USAGE } from '../../infra/smoke/help';
import { parseSmokeArgs, SmokeUsageError } from '../../infra/smoke/options';
import { smoke, type SmokeCommandDeps } from '../../infra/smoke/run';
import { runSmoke, STEPS, type SmokeResult } from '../../infra/smoke/smoke';
import { cloudFormationClient } from '../../infra/smoke/stack-url';
import { apiUrlOf } from '../../infra/stack-facts';
import { getRule } from '../../shared/store/rules-store';
import { sentEmails, sharedDynamoEndpoint } from '../support/emulators';

/**
 * `npm run smoke`, the deploy guide's smoke test. Its options and its pacing are tested on their own (a fake
 * clock, a scripted API); then the script runs against the local stack, in-process and as the CLI, given
 * `runtime.apiUrl`, which has exactly the shape of the deployed ApiUrl output: a change of that shape or of an
 * API step fails here before it reaches an operator.
 */
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
// the node the npm scripts run (the `node` dev dependency), whatever node runs vitest
const NODE = existsSync(join(PROJECT_ROOT, 'node_modules/.bin/node')) ? join(PROJECT_ROOT, 'node_modules/.bin/node') : process.execPath;
const DEPLOYED_API_URL = apiUrlOf('https://abc123.execute-api.eu-central-1.amazonaws.com');

function output(): { stream: Writable; text: () => string; lines: () => string[] } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text, lines: () => text.split('\n').filter((line) => line !== '') };
}

/** Runs `npm run smoke -- …` in-process; `stdin` is what is piped in. */
async function smokeCommand(argv: string[], stdin = '', deps: SmokeCommandDeps = {}) {
  const stdout = output();
  const stderr = output();
  const exitCode = await smoke(argv, { stdin: Readable.from([stdin]), stdout: stdout.stream, stderr: stderr.stream }, deps);
  return { exitCode, stdout: stdout.lines(), stderr: stderr.text() };
}

function usageError(argv: string[]): string {
  try {
    parseSmokeArgs(argv);
  } catch (error) {
    if (error instanceof SmokeUsageError) return error.message;
    throw error;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
}

describe('smoke options', () => {
  it('takes --url, or --stack with --region and --profile, and --login, --password-stdin, --vehicle', () => {
    expect(parseSmokeArgs(['--url', DEPLOYED_API_URL, '--login', 'dispatcher', '--password-stdin'])).toEqual({
      help: false,
      options: { target: { kind: 'url', url: DEPLOYED_API_URL }, login: 'dispatcher', passwordStdin: true },
    });
    expect(
      parseSmokeArgs(['--stack', 'Fleetwatch', '--region', 'eu-central-1', '--profile', 'ops', '--login', 'dispatcher', '--vehicle', '1001']),
    ).toEqual({
      help: false,
      options: {
        target: { kind: 'stack', stack: 'Fleetwatch', region: 'eu-central-1', profile: 'ops' },
        login: 'dispatcher',
        passwordStdin: false,
        vehicleId: 1001,
      },
    });
    expect(parseSmokeArgs(['--help'])).toEqual({ help: true });
  });

  it('names the missing or conflicting option', () => {
    expect(usageError(['--url', DEPLOYED_API_URL])).toBe('--login: required: the user to log in as');
    expect(usageError(['--login', 'dispatcher'])).toBe('give --url <ApiUrl> or --stack <name>');
    expect(usageError(['--url', DEPLOYED_API_URL, '--stack', 'Fleetwatch', '--login', 'dispatcher'])).toBe('give --url or --stack, not both');
    expect(usageError(['--url', DEPLOYED_API_URL, '--region', 'eu-central-1', '--login', 'dispatcher'])).toBe('--region: goes with --stack only');
    expect(usageError(['--url', 'abc', '--login', 'dispatcher'])).toBe('--url: the ApiUrl output, an http(s) URL ending in /api/v3');
    expect(usageError(['--url', DEPLOYED_API_URL, '--login', 'dispatcher', '--vehicle', 'truck'])).toBe('--vehicle: a vehicle id (a whole number)');
    expect(usageError(['--url', DEPLOYED_API_URL, '--login', 'dispatcher', '--password', 'secret'])).toMatch(/Unknown option '--password'/);
  });

  it('prints the usage with --help, and the error and usage with exit code 2 on a bad option', async () => {
    expect(await smokeCommand(['--help'])).toMatchObject({ exitCode: 0, stdout: USAGE.trimEnd().split('\n').filter(Boolean) });
    const bad = await smokeCommand(['--login', 'dispatcher']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toBe(`error: give --url <ApiUrl> or --stack <name>\n\n${USAGE}`);
  });

  it('asks for the password only in a terminal: piped, it must be --password-stdin, and one line', async () => {
    const piped = await smokeCommand(['--url', DEPLOYED_API_URL, '--login', 'dispatcher'], 'secret\n');
    expect(piped).toMatchObject({
      exitCode: 2,
      stderr: 'error: a password is needed: run in a terminal to be asked for it, or pipe it in with --password-stdin\n',
    });
    const empty = await smokeCommand(['--url', DEPLOYED_API_URL, '--login', 'dispatcher', '--password-stdin'], '');
    expect(empty).toMatchObject({ exitCode: 2, stderr: 'error: --password-stdin: the first line of standard input is empty\n' });
  });
});

interface FakeAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
type FakeRoute = (call: number) => FakeAnswer;

/** A clock whose sleeps only move it on. */
function fakeClock(start = Date.parse('2026-03-01T08:00:00Z')): Clock {
  let now = start;
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  };
}

const USER_ID = '7f3a2b1c-0d9e-4f8a-8b7c-6d5e4f3a2b1c';
const CLIENT_ID = '3a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const TEST_ID = '0b9c8d7e-6f5a-4b3c-9d2e-1f0a9b8c7d6e';
const TEST_URL = `/api/v3/notifications/42/test/${TEST_ID}`;
const pendingTest: FakeAnswer = { status: 200, body: { testId: TEST_ID, ruleId: 42, status: 'pending', targets: [] } };
const doneTest = (...targets: Array<{ target: string; outcome: string; reason?: string }>): FakeAnswer => ({
  status: 200,
  body: { testId: TEST_ID, ruleId: 42, status: 'done', finishedAt: '2026-03-01T08:00:05.000Z', targets },
});
const checkAnswer: FakeAnswer = { status: 200, body: { expiresAt: '2026-03-01T08:30:00.000Z', userId: USER_ID, parentId: CLIENT_ID } };

/** A deployed API as the smoke test sees it, route by route (`METHOD path`); `overrides` replace routes. */
function fakeApi(clock: Clock, overrides: Record<string, FakeRoute>) {
  const calls: Array<{ at: number; key: string; session: boolean; body: unknown }> = [];
  const routes: Record<string, FakeRoute> = {
    'GET /api/v3/openapi.json': () => ({ status: 200, body: { openapi: '3.1.0', info: { title: 'fleetwatch API', version: '3.0.0' } } }),
    'POST /api/v3/auth/login': () => ({ status: 200, body: { AuthId: 'session-token', User: 'dispatcher' } }),
    'GET /api/v3/auth/check': () => checkAnswer,
    'POST /api/v3/vehicles/find': () => ({ status: 200, body: [{ vehicleId: 1001, name: 'MAN TGX 1001', parentId: CLIENT_ID, parentName: 'Acme' }] }),
    'POST /api/v3/notifications': () => ({ status: 200, body: { id: 42, name: 'smoke', version: 1 } }),
    'POST /api/v3/notifications/42/test': () => ({ status: 202, body: { testId: TEST_ID, ruleId: 42, status: 'pending', targets: [] } }),
    [`GET ${TEST_URL}`]: (call) => (call < 2 ? pendingTest : doneTest({ target: 'email:ops@fleet.example', outcome: 'sent' })),
    'POST /api/v3/notifications/history': () => ({ status: 200, body: { items: [{}, {}], nextToken: null } }),
    'DELETE /api/v3/notifications/42': () => ({ status: 200, body: 'Success' }),
    ...overrides,
  };
  const fetch: Fetch = async (url, init) => {
    const { origin, pathname } = new URL(url);
    expect(origin).toBe('https://abc123.execute-api.eu-central-1.amazonaws.com');
    const key = `${init.method} ${pathname}`;
    const call = calls.filter((entry) => entry.key === key).length;
    const session = (init.headers as Record<string, string>)['x-auth'] === 'session-token';
    calls.push({ at: clock.now(), key, session, body: init.body === undefined ? undefined : JSON.parse(String(init.body)) });
    const answer = routes[key]?.(call) ?? { status: 404, body: { error: 'NotFound', message: 'no such endpoint' } };
    return new Response(JSON.stringify(answer.body ?? null), { status: answer.status, headers: answer.headers });
  };
  return { fetch, calls };
}

async function fakeRun(overrides: Record<string, FakeRoute> = {}, vehicleId?: number) {
  const clock = fakeClock();
  const api = fakeApi(clock, overrides);
  const lines: string[] = [];
  const result = await runSmoke(
    { apiUrl: DEPLOYED_API_URL, login: 'dispatcher', password: 'secret', ...(vehicleId === undefined ? {} : { vehicleId }) },
    { print: (line) => lines.push(line), fetch: api.fetch, clock },
  );
  return { result, lines, calls: api.calls };
}

const tooMany = (retryAfterSeconds: number): FakeAnswer => ({
  status: 429,
  body: { error: 'TooManyRequests', message: 'request rate exceeded: at most one request per 1000 ms on a session' },
  headers: { 'retry-after': String(retryAfterSeconds) },
});

const stepsOf = (result: SmokeResult) => result.steps.map((step) => `${step.ok ? 'ok' : 'FAIL'} ${step.step}`);

describe('smoke steps on a scripted API and a fake clock', () => {
  it('passes every step, one line each, and sends the rule the deploy guide describes', async () => {
    const { result, lines, calls } = await fakeRun();
    expect(result.exitCode).toBe(0);
    expect(result.ruleId).toBe(42);
    expect(lines).toEqual([
      'ok   openapi (fleetwatch API 3.0.0)',
      'ok   login (as dispatcher)',
      'ok   check (user 7f3a2b1c…, client 3a1b2c3d…)',
      'ok   vehicle (vehicle 1001 "MAN TGX 1001")',
      'ok   create rule (rule 42 "smoke 2026-03-01T08:00:01.050Z", panic button on vehicle 1001, e-mail to user 7f3a2b1c…)',
      expect.stringMatching(/^ok {3}test send \(1 of 1 targets sent in \d+\.\d s\)$/),
      '       email:ops@fleet.example: sent',
      'ok   history (2 alerts in the last hour)',
      'ok   delete rule (rule 42)',
    ]);
    expect(calls.find((call) => call.key === 'POST /api/v3/notifications')?.body).toEqual({
      type: 6,
      parentId: CLIENT_ID,
      name: 'smoke 2026-03-01T08:00:01.050Z',
      vehicleIds: [1001],
      toEmail: true,
      recipientIds: [USER_ID],
      stored: true,
    });
    const history = calls.find((call) => call.key === 'POST /api/v3/notifications/history')?.body as { from: string; to: string };
    expect(Date.parse(history.to) - Date.parse(history.from)).toBe(3_600_000);
    // neither the password nor the session token is printed
    expect(lines.join('\n')).not.toMatch(/secret|session-token/);
  });

  it('spaces the requests of the session at least 1.05 s apart, and waits out a 429 for its Retry-After', async () => {
    const { result, calls } = await fakeRun({ 'GET /api/v3/auth/check': (call) => (call === 0 ? tooMany(2) : checkAnswer) });
    expect(result.exitCode).toBe(0);
    const session = calls.filter((call) => call.session);
    expect(session.length).toBeGreaterThan(8);
    for (let index = 1; index < session.length; index++) {
      expect(session[index]!.at - session[index - 1]!.at).toBeGreaterThanOrEqual(SESSION_REQUEST_SPACING_MS);
    }
    const [refused, retried] = calls.filter((call) => call.key === 'GET /api/v3/auth/check');
    expect(retried!.at - refused!.at).toBeGreaterThanOrEqual(2_000);
  });

  it(`gives up after ${MAX_RETRIES_AFTER_429} retries, or at once on a Retry-After beyond 30 s, naming the step; the rule is deleted all the same`, async () => {
    const retried = await fakeRun({ 'GET /api/v3/auth/check': () => tooMany(1) });
    expect(retried.result.exitCode).toBe(1);
    expect(retried.calls.filter((call) => call.key === 'GET /api/v3/auth/check')).toHaveLength(MAX_RETRIES_AFTER_429 + 1);
    expect(retried.lines.at(-1)).toBe('FAIL check: HTTP 429 TooManyRequests: request rate exceeded: at most one request per 1000 ms on a session');

    const hourly = await fakeRun({ 'POST /api/v3/notifications/42/test': () => tooMany(3_000) }, 1001);
    expect(hourly.calls.filter((call) => call.key === 'POST /api/v3/notifications/42/test')).toHaveLength(1);
    expect(stepsOf(hourly.result)).toEqual(['ok openapi', 'ok login', 'ok check', 'ok create rule', 'FAIL test send', 'ok delete rule']);
    expect(hourly.result.exitCode).toBe(1);
  });

  it('fails the test send when it is still pending after 60 s, and still deletes the rule', async () => {
    const { result, lines, calls } = await fakeRun({ [`GET ${TEST_URL}`]: () => pendingTest });
    expect(stepsOf(result)).toEqual(['ok openapi', 'ok login', 'ok check', 'ok vehicle', 'ok create rule', 'FAIL test send', 'ok delete rule']);
    expect(lines).toContain(`FAIL test send: no outcome within 60 s: test ${TEST_ID} still pending`);
    const polls = calls.filter((call) => call.key === `GET ${TEST_URL}`);
    expect(polls.at(-1)!.at - polls[0]!.at).toBeGreaterThanOrEqual(60_000 - 2 * SESSION_REQUEST_SPACING_MS);
    expect(polls.length).toBeLessThan(60);
    expect(result.exitCode).toBe(1);
  });

  it('fails the test send when no target was sent, printing each target with its outcome', async () => {
    const { result, lines } = await fakeRun({
      [`GET ${TEST_URL}`]: () =>
        doneTest(
          { target: 'email:ops@fleet.example', outcome: 'failed', reason: 'in the SES sandbox the recipient must be a verified address' },
          { target: 'telegram:777001', outcome: 'notLinked' },
        ),
    });
    expect(result.exitCode).toBe(1);
    expect(lines.slice(5)).toEqual([
      'FAIL test send: no target was sent (2 tried)',
      '       email:ops@fleet.example: failed (in the SES sandbox the recipient must be a verified address)',
      '       telegram:777001: notLinked',
      'ok   delete rule (rule 42)',
    ]);
  });

  it('reports a failed delete too', async () => {
    const { result, lines } = await fakeRun({
      'POST /api/v3/notifications/history': () => ({ status: 500, body: { error: 'InternalError', message: 'correlation id 1' } }),
      'DELETE /api/v3/notifications/42': () => ({ status: 409, body: { error: 'Conflict', message: 'notification 42 changed meanwhile' } }),
    });
    expect(result.exitCode).toBe(1);
    expect(lines.slice(-2)).toEqual([
      'FAIL history: HTTP 500 InternalError: correlation id 1',
      'FAIL delete rule: HTTP 409 Conflict: notification 42 changed meanwhile',
    ]);
  });

  it('fails the vehicle step with what to do when the user sees no vehicle', async () => {
    const { result, lines } = await fakeRun({ 'POST /api/v3/vehicles/find': () => ({ status: 200, body: [] }) });
    expect(result.exitCode).toBe(1);
    expect(lines.at(-1)).toBe(
      'FAIL vehicle: dispatcher sees no vehicle: register one to its client (npm run admin -- create-vehicle, or POST /vehicles), or name one with --vehicle',
    );
  });

  it('names the step when the API cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const run = await smokeCommand(['--url', apiUrlOf(`http://127.0.0.1:${port}`), '--login', 'dispatcher', '--password-stdin'], 'secret\n');
    expect(run).toMatchObject({ exitCode: 1, stdout: ['FAIL openapi: fetch failed (ECONNREFUSED)'] });
  });

  it('names an answer that is not what the step reads', async () => {
    const { lines } = await fakeRun({ 'POST /api/v3/auth/login': () => ({ status: 200, body: { token: 'x' } }) });
    expect(lines.at(-1)).toBe('FAIL login: HTTP 200 but not the expected answer: AuthId: Invalid input: expected string, received undefined');
  });
});

describe('smoke --stack', () => {
  const cloudFormation = mockClient(CloudFormationClient);
  beforeEach(() => cloudFormation.reset());
  // the SDK classes outlive this file in its worker (isolate: false): a stub left on one would answer the next file
  afterAll(() => cloudFormation.restore());

  it("reads the stack's ApiUrl output through DescribeStacks with the given region and profile", async () => {
    cloudFormation.on(DescribeStacksCommand, { StackName: 'Fleetwatch' }).resolves({
      Stacks: [
        {
          StackName: 'Fleetwatch',
          CreationTime: new Date(),
          StackStatus: 'CREATE_COMPLETE',
          Outputs: [{ OutputKey: 'ApiUrl', OutputValue: DEPLOYED_API_URL }],
        },
      ],
    });
    const targets: unknown[] = [];
    const clock = fakeClock();
    const api = fakeApi(clock, {});
    const run = await smokeCommand(
      ['--stack', 'Fleetwatch', '--region', 'eu-central-1', '--profile', 'ops', '--login', 'dispatcher', '--password-stdin', '--vehicle', '1001'],
      'secret\nnot the password\n',
      {
        fetch: api.fetch,
        clock,
        cloudFormation: (target) => {
          targets.push(target);
          return cloudFormationClient(target);
        },
      },
    );
    expect(targets).toEqual([{ region: 'eu-central-1', profile: 'ops' }]);
    expect(run.stdout[0]).toBe(`ok   stack (Fleetwatch: ${DEPLOYED_API_URL})`);
    expect(run.exitCode).toBe(0);
    expect(api.calls.find((call) => call.key === 'POST /api/v3/auth/login')?.body).toEqual({ login: 'dispatcher', password: 'secret' });
    const client = cloudFormationClient({ region: 'eu-central-1', profile: 'ops' });
    expect([await client.config.region(), client.config.profile]).toEqual(['eu-central-1', 'ops']);
  });

  it('fails at the stack step when the stack has no ApiUrl output, or is not there', async () => {
    cloudFormation
      .on(DescribeStacksCommand)
      .resolves({ Stacks: [{ StackName: 'Old', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: [] }] });
    const old = await smokeCommand(['--stack', 'Old', '--login', 'dispatcher', '--password-stdin'], 'secret\n');
    expect(old).toMatchObject({
      exitCode: 1,
      stdout: ['FAIL stack: stack Old has no ApiUrl output: deploy the current version (cdk deploy), or give --url'],
    });
    cloudFormation.on(DescribeStacksCommand).rejects(Object.assign(new Error('Stack with id Gone does not exist'), { name: 'ValidationError' }));
    const gone = await smokeCommand(['--stack', 'Gone', '--login', 'dispatcher', '--password-stdin'], 'secret\n');
    expect(gone).toMatchObject({ exitCode: 1, stdout: ['FAIL stack: ValidationError: Stack with id Gone does not exist'] });
  });
});

describe('npm run smoke against the local stack', () => {
  let runtime: LocalRuntime;

  beforeAll(async () => {
    runtime = await startLocalRuntime({
      dynamoEndpoint: sharedDynamoEndpoint(),
      prefix: `t-smoke-${process.pid}`,
      fleet: demoFleet(2),
      simulator: false,
      log: () => {},
    });
  });
  afterAll(async () => runtime?.stop());

  it('passes every step given runtime.apiUrl, shaped as the ApiUrl output; the test e-mail reaches the inbox and the rule is gone', async () => {
    expect(runtime.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v3$/);
    const lines: string[] = [];
    const result = await runSmoke({ apiUrl: runtime.apiUrl, login: DEMO.login, password: DEMO.password }, { print: (line) => lines.push(line) });
    expect(lines.filter((line) => !line.startsWith(' '))).toEqual(STEPS.map((step) => expect.stringMatching(new RegExp(`^ok {3}${step} \\(`))));
    expect(lines).toContain(`       email:${DEMO.email}: sent`);
    expect(result.exitCode).toBe(0);
    expect(await getRule(result.ruleId!)).toBeNull();
    const testMail = (await sentEmails(runtime.emulators)).filter((email) => email.destination.to.includes(DEMO.email));
    expect(testMail.map((email) => email.subject)).toEqual([expect.stringContaining('TEST')]);
  });

  it('runs as the CLI, the password piped in, and exits 0', async () => {
    const child = spawn(NODE, ['--import', 'tsx', 'infra/smoke/cli.ts', '--url', runtime.apiUrl, '--login', DEMO.login, '--password-stdin'], {
      cwd: PROJECT_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(`${DEMO.password}\n`);
    // not spawnSync: the local stack serving the CLI runs in this process
    const exitCode = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).toBe('');
    expect(stdout.split('\n').filter((line) => /^(ok|FAIL)/.test(line))).toEqual(
      STEPS.map((step) => expect.stringMatching(new RegExp(`^ok {3}${step} \\(`))),
    );
    expect(exitCode).toBe(0);
    const ruleId = Number(/^ok {3}delete rule \(rule (\d+)\)$/m.exec(stdout)?.[1]);
    expect(await getRule(ruleId)).toBeNull();
  });

  it('exits 1 naming the login step on a wrong password', async () => {
    const run = await smokeCommand(['--url', runtime.apiUrl, '--login', DEMO.login, '--password-stdin'], 'not-the-password\n');
    expect(run).toMatchObject({
      exitCode: 1,
      stdout: ['ok   openapi (fleetwatch API 3.0.0)', 'FAIL login: HTTP 401 Unauthorized: wrong login or password'],
    });
  });

  it('fails at openapi when the URL has /api/v3 appended once more than the ApiUrl output has', async () => {
    const doubled = `${runtime.apiUrl}/api/v3`;
    const run = await smokeCommand(['--url', doubled, '--login', DEMO.login, '--password-stdin'], `${DEMO.password}\n`);
    expect(run).toMatchObject({ exitCode: 1, stdout: [`FAIL openapi: HTTP 404 NotFound: no such endpoint (GET ${doubled}/openapi.json)`] });
  });
});
