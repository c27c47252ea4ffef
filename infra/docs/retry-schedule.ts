import {
  MAX_QUEUE_WAIT_SECONDS,
  MAX_RETRY_AFTER_SECONDS,
  RETRY_ATTEMPTS,
  RETRY_HORIZON_SECONDS,
  RETRY_JITTER,
  rangeText,
  retryScheduleRanges,
  retryScheduleText,
  spanText,
} from '../../shared/delivery/retry-backoff';

/**
 * The generated regions `<!-- generated:retry:schedule -->` … `<!-- /generated -->` of docs/api.md and
 * docs/concepts.md: the delivery retry schedule as shared/delivery/retry-backoff.ts states it, so the pages
 * cannot drift from the code. Everything outside them is written by hand.
 */
const REGION = /(<!-- generated:retry:(\w+) -->\n)[\s\S]*?(<!-- \/generated -->)/g;

export const RETRY_SCHEDULE_PAGES = ['docs/api.md', 'docs/concepts.md'] as const;

export function retryScheduleTable(): string[] {
  const rows = retryScheduleRanges().map(({ nominal, min, max }, index) => {
    const where = nominal <= MAX_QUEUE_WAIT_SECONDS ? 'the deliveries queue' : 'the alert, on the due index';
    return `| ${index + 1} | ${spanText(nominal)} | ${rangeText(min, max)} | ${where} |`;
  });
  const least = retryScheduleRanges().reduce((sum, range) => sum + range.min, 0);
  const most = retryScheduleRanges().reduce((sum, range) => sum + range.max, 0);
  return [
    `Waits after each attempt: ${retryScheduleText()} (each ±${RETRY_JITTER * 100}%, never sooner than a Retry-After or ` +
      `retry_after the channel answered, up to ${spanText(MAX_RETRY_AFTER_SECONDS)}): ${RETRY_ATTEMPTS} attempts over about ` +
      `${spanText(RETRY_HORIZON_SECONDS)} (${rangeText(least, most)} with the jitter).`,
    '',
    '| after attempt | next attempt in | drawn within | the wait is held by |',
    '|---|---|---|---|',
    ...rows,
    `| ${RETRY_ATTEMPTS} | given up on | | the target is \`failed\`, with one record on the deliveries DLQ |`,
  ];
}

/** The page with its retry schedule regions rewritten. Fails on a region it does not know. */
export function generateRetryRegions(page: string, path: string): string {
  return page.replace(REGION, (_match, open: string, name: string, close: string) => {
    if (name !== 'schedule') throw new Error(`${path} has a generated region retry:${name}, which the generator does not know`);
    return `${open}\n${retryScheduleTable().join('\n')}\n\n${close}`;
  });
}
