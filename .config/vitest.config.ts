import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { LongFirstSequencer } from './long-first-sequencer';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/replay/full/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // most files spend their time waiting on the emulators, a session's one request a second or a timer: one more
    // file than cores keeps the cores busy (on two cores, three at once took 685 s where two took 810 s; vitest's
    // default is one fewer than the cores)
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: LongFirstSequencer },
    globalSetup: ['test/support/global-setup.ts'],
  },
});
