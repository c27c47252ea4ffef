/** What one benchmark hands to `npm run bench`: the lines it prints, and its figures under stable names (`--json`). */
export interface BenchResult {
  lines: string[];
  figures: Record<string, number>;
}
