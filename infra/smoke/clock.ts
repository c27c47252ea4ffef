/**
 * Time as the smoke test sees it. Injectable, so that the pacing, the Retry-After waits and the test send's
 * deadline can be tested on a fake clock without real waits.
 */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
