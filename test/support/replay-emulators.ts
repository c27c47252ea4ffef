import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulators, type Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from './emulators';
import { RESTARTING_SCENARIOS, type Scenario } from './replay-scenarios';

/**
 * Emulators for one replay scenario. A scenario that stops and restarts DynamoDB Local or fauxqs gets its own
 * of both, keeping their data in a temporary folder (removed afterwards), so that the run's shared DynamoDB
 * Local is never stopped under other test files.
 */
export async function startReplayEmulators(name: string, scenario: Scenario): Promise<Emulators> {
  if (!RESTARTING_SCENARIOS.includes(scenario)) return startTestEmulators(name);
  const dataDir = await mkdtemp(join(tmpdir(), `fleetwatch-${name}-`));
  const emulators = await startEmulators({ prefix: `t-${name}-${process.pid}`, dataDir });
  const stopEmulators = emulators.stop.bind(emulators);
  emulators.stop = async () => {
    await stopEmulators();
    await rm(dataDir, { recursive: true, force: true });
  };
  return emulators;
}
