import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { TEST_ENV } from './test-env';
import { LongFirstSequencer } from './long-first-sequencer';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/replay/full/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: TEST_ENV,
    // a worker runs file after file: the libraries (the AWS SDK, zod, grammy, the CDK) load once per worker, and
    // file-isolation.ts gives each file the project's modules afresh and restores what it changed. With a fresh
    // process per file the same suite took 690 s and 20 min of CPU; like this, 527 s and 15.5 min
    isolate: false,
    setupFiles: ['test/support/file-isolation.ts'],
    // Powertools' parameters keep their cache (the Telegram and history-token secrets) in a module of their own:
    // loaded through vitest, it is renewed with the project's modules for each file
    server: { deps: { inline: [/@aws-lambda-powertools\/parameters/] } },
    // most files spend their time waiting on the emulators, a session's one request a second or a timer: one more
    // file than cores keeps the cores busy (on two cores, three at once took 685 s where two took 810 s; vitest's
    // default is one fewer than the cores)
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: LongFirstSequencer },
    globalSetup: ['test/support/global-setup.ts'],
  },
});
