import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findProcessesMentioning } from '../support/processes';

/**
 * `npm start` as a person runs it, as a real process tree (npm → tsx → node → DynamoDB Local's JVM): it runs
 * quietly, owns its data folder, and one SIGTERM or SIGINT to npm stops every child and frees every port.
 */
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve) => {
          const server = createServer();
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '0.0.0.0', () => probe.close(() => resolve(true)));
  });
}

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function npmStart(dataDir: string, ports: number[]): Promise<Started> {
  const [api, ses, dynamo, sqs, telegramFake] = ports;
  const child = spawn('npm', ['start', '--', '--no-simulator'], {
    cwd: PROJECT_ROOT,
    // its own process group, as a terminal's foreground job: Ctrl-C signals the whole group
    detached: true,
    env: {
      ...process.env,
      FLEETWATCH_DATA_DIR: dataDir,
      FLEETWATCH_API_PORT: String(api),
      FLEETWATCH_SES_PORT: String(ses),
      FLEETWATCH_DYNAMODB_PORT: String(dynamo),
      FLEETWATCH_SQS_PORT: String(sqs),
      FLEETWATCH_TELEGRAM_FAKE_PORT: String(telegramFake),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('npm start as a process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fleetwatch-npm-start-'));
  const started: Started[] = [];
  afterAll(() => {
    for (const { child } of started) if (child.exitCode === null) child.kill('SIGKILL');
    for (const pid of findProcessesMentioning(dataDir)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves no DynamoDB Local behind when Ctrl-C comes while it is still starting', async () => {
    const ports = await freePorts(5);
    const run = await npmStart(dataDir, ports);
    started.push(run);
    // the JVM is up (it names the data folder) but the banner is not out yet
    await waitFor(() => findProcessesMentioning(join(dataDir, 'dynamodb')).length > 0, 'DynamoDB Local to start');
    expect(run.output()).not.toContain('Ctrl-C stops everything');
    process.kill(-run.child.pid!, 'SIGINT');
    await run.exited;
    await waitFor(() => findProcessesMentioning(dataDir).length === 0, 'every child to stop', 15_000);
    await waitFor(async () => (await Promise.all(ports.map(portIsFree))).every(Boolean), 'the ports to be free', 15_000);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops every child and frees its ports on ${signal}, and keeps its data folder to itself meanwhile`, async () => {
      const ports = await freePorts(5);
      const first = await npmStart(dataDir, ports);
      started.push(first);
      await waitFor(() => first.output().includes('Ctrl-C stops everything'), 'the banner');
      expect(findProcessesMentioning(dataDir).length).toBeGreaterThan(0);

      // a second instance on other ports but the same data folder is refused, and wipes nothing
      const second = await npmStart(dataDir, await freePorts(5));
      started.push(second);
      expect(await second.exited).not.toBe(0);
      expect(second.output()).toContain(`another \`npm start\` is using ${dataDir}`);

      // SIGTERM to npm alone (as a service manager sends it); SIGINT to the whole group, as Ctrl-C does
      if (signal === 'SIGINT') process.kill(-first.child.pid!, signal);
      else first.child.kill(signal);
      expect(await first.exited).toBe(0);
      await waitFor(async () => (await Promise.all(ports.map(portIsFree))).every(Boolean), 'the ports to be free', 15_000);
      expect(findProcessesMentioning(dataDir)).toEqual([]);
      // without --verbose the console carries fleetwatch's own lines, not the functions' Powertools output
      expect(first.output()).not.toMatch(/No application metrics|"level":"WARN"|"level":"INFO"/);
      // pollers stop before the emulators they poll: no refused connection on the way out
      expect(first.output()).not.toMatch(/ECONNREFUSED|failed:/);
      expect(first.output()).toContain('Stopped.');
    });
  }
});
