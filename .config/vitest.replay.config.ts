import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { TEST_ENV } from './test-env';

/** `npm run test:replay`: the full replay proof (500 vehicles, 100,000 messages per scenario). */
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/replay/full/**/*.test.ts'],
    testTimeout: 3_600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    env: TEST_ENV,
    globalSetup: ['test/support/global-setup.ts'],
    fileParallelism: false,
  },
});
