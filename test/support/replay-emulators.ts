import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulators, type Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from './emulators';
import { RESTARTING_SCENARIOS, type Scenario } from './replay-scenarios';

/**
 * Emulators for one replay scenario. A scenario that stops and restarts DynamoDB Local or fauxqs gets its own
 * of both, keeping their data in a temporary folder (removed afterwards), so that the run's shared DynamoDB
 * Local is never stopped under other test files. Their ports lie below the kernel's ephemeral range: while an
 * emulator is down, a server started elsewhere with port 0 could otherwise be given its port, and the
 * restarted emulator would find it taken (or the functions would talk to that other server).
 */
const SHARED_MEMORY = '/dev/shm';

async function isFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function portOutsideEphemeralRange(): Promise<number> {
  const range = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '32768 60999');
  const firstEphemeral = Number(range.trim().split(/\s+/)[0]) || 32_768;
  const low = Math.max(10_000, firstEphemeral - 12_000);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (firstEphemeral - low));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port in [${low}, ${firstEphemeral})`);
}

export async function startReplayEmulators(name: string, scenario: Scenario): Promise<Emulators> {
  if (!RESTARTING_SCENARIOS.includes(scenario)) return startTestEmulators(name);
  // in memory where the machine has a tmpfs: DynamoDB Local's SQLite and fauxqs then never wait on the disk
  const dataDir = await mkdtemp(join(existsSync(SHARED_MEMORY) ? SHARED_MEMORY : tmpdir(), `fleetwatch-${name}-`));
  const emulators = await startEmulators({
    prefix: `t-${name}-${process.pid}`,
    dataDir,
    dynamoPort: await portOutsideEphemeralRange(),
    sqsPort: await portOutsideEphemeralRange(),
    // the replay's clock runs in the past: DynamoDB Local's time to live would delete its alerts
    timeToLive: false,
  });
  const stopEmulators = emulators.stop.bind(emulators);
  emulators.stop = async () => {
    await stopEmulators();
    await rm(dataDir, { recursive: true, force: true });
  };
  return emulators;
}
