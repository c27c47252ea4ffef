import { afterAll, vi } from 'vitest';

/**
 * A worker runs many test files one after another (`isolate: false`): the libraries they import (the SDK, zod,
 * grammy) load once per worker, and each file still gets the project's modules afresh, as a new Lambda container
 * would (their module-level caches: secrets, clients, the rule cache), and leaves to the next file none of its
 * environment variables, stubbed globals, mocks or fake clock.
 */
vi.resetModules();
const environment = { ...process.env };

afterAll(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  vi.useRealTimers();
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
});
