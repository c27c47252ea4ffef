/** What one benchmark prints (`lines`) and the same results under stable names for `--json` (`figures`). */
export interface BenchSection {
  lines: string[];
  figures: Record<string, unknown>;
}
