import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateScalePage, readSaved, SCALE_PAGE } from './scale-page';

describe('docs/scale.md', () => {
  it('is what `npm run docs:scale` writes from the cost model and the last measured costs', () => {
    const committed = readFileSync(SCALE_PAGE, 'utf8');
    expect(committed, 'docs/scale.md is out of date: run `npm run docs:scale`').toBe(generateScalePage(committed, readSaved()));
  });
});
