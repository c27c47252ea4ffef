import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The replays take minutes each, and a few other files a minute, where most files take seconds. Without timings from
// an earlier run (a fresh clone, as in CI) vitest orders files by size, largest first, which puts these small files
// last and leaves one worker running them alone at the end (message-cost.test.ts, started last, held a CI run 80 s
// after the others); started first, they run beside everything else. telegram-timeout.test.ts mostly waits (10 s
// for a Bot API that never answers): started last, as one of the smallest files, it held the end of every run.
const LONG_RUNNING = [
  /\/test\/replay\//,
  /\/test\/local\/npm-start\.test\.ts$/,
  /\/test\/api\/preview\.test\.ts$/,
  /\/test\/pipeline\/message-cost\.test\.ts$/,
  /\/test\/reliability\/poison\.test\.ts$/,
  /\/test\/delivery\/telegram-timeout\.test\.ts$/,
];

const isLong = (spec: TestSpecification) => LONG_RUNNING.some((pattern) => pattern.test(spec.moduleId));

export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter(isLong), ...sorted.filter((spec) => !isLong(spec))];
  }
}
