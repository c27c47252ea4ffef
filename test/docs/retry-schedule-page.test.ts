import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateRetryRegions, RETRY_SCHEDULE_PAGES, retryScheduleTable } from '../../infra/docs/retry-schedule';
import { RETRY_WAITS_SECONDS } from '../../shared/delivery/retry-backoff';

const read = (path: string) => readFileSync(join(import.meta.dirname, '../..', path), 'utf8');

describe('the retry schedule in the docs', () => {
  it.each(RETRY_SCHEDULE_PAGES)('%s has the schedule npm run docs:generate writes from retry-backoff.ts', (path) => {
    const page = read(path);
    expect(page).toContain('<!-- generated:retry:schedule -->');
    expect(generateRetryRegions(page, path), `${path} is out of date: run npm run docs:generate`).toBe(page);
  });

  it('lists every wait of the schedule, where it waits, and the end', () => {
    const table = retryScheduleTable();
    expect(table[0]).toBe(
      'Waits after each attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (each ±20%, never sooner than a Retry-After or retry_after ' +
        'the channel answered, up to 10 h): 8 attempts over about 27.6 h (22.1–33.1 h with the jitter).',
    );
    expect(table.filter((row) => /^\| [1-7] \|/.test(row))).toHaveLength(RETRY_WAITS_SECONDS.length);
    expect(table).toContain('| 2 | 5 min | 4–6 min | the deliveries queue |');
    expect(table).toContain('| 3 | 30 min | 24–36 min | the alert, on the due index |');
    expect(table.at(-1)).toMatch(/^\| 8 \| given up on \|/);
  });

  it('refuses a region it does not know', () => {
    expect(() => generateRetryRegions('<!-- generated:retry:backoff -->\n<!-- /generated -->', 'docs/x.md')).toThrow(/retry:backoff/);
  });
});
