/**
 * Best-of-N wall times of several pieces of work measured in alternation, so that a baseline and the code
 * compared with it see the same load on a shared machine. Nanoseconds, after one warm-up round.
 */
export function bestTimes(works: readonly (() => void)[], runs = 5): number[] {
  const best = works.map(() => Infinity);
  for (let round = -1; round < runs; round++) {
    works.forEach((work, i) => {
      const start = process.hrtime.bigint();
      work();
      const elapsed = Number(process.hrtime.bigint() - start);
      if (round >= 0) best[i] = Math.min(best[i]!, elapsed);
    });
  }
  return best;
}

/** A deterministic pseudo-random sequence (mulberry32), so every bench run measures the same data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function formatTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}
