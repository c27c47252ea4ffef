import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { TEST_ENV } from './test-env';
import { testRings } from './test-rings';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * `npm run test:unit`: every test that needs no emulator and no JVM (evaluators, property tests, schemas,
 * rendering, the CDK template), without the global DynamoDB Local of `npm test`. The files are chosen by what
 * they import (see test-rings.ts); one that reaches for the emulators all the same fails with a message that
 * sends it to `npm test` (test/support/emulators.ts).
 */
export default defineConfig({
  root,
  test: {
    include: testRings(root, (file) => file.startsWith('test/replay/full/')).unit,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: TEST_ENV,
    // no module isolation between files: nothing here holds state across files, and each file's imports
    // (the CDK, the AWS SDK) would otherwise load again per file
    isolate: false,
  },
});
