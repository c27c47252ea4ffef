import type { Row, Status } from './row';

const FOUND_WIDTH = 56;
const FIX_WIDTH = 72;
const GAP = '  ';

/** Breaks text at spaces into lines of at most `width`; a longer word (a command, a URL) stays whole on its own line. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return line ? [...lines, line] : [''];
}

/** The table `npm run preflight` prints: one row per check, its cells wrapped, then a count by status. */
export function renderTable(rows: readonly Row[]): string {
  const checkWidth = Math.max('check'.length, ...rows.map((row) => row.check.length));
  const widths = [checkWidth, 'status'.length, FOUND_WIDTH, FIX_WIDTH];
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, index) => cell.padEnd(widths[index]!))
      .join(GAP)
      .trimEnd();
  const output = [line(['check', 'status', 'found', 'fix']), line(widths.map((width) => '-'.repeat(width)))];
  for (const row of rows) {
    const columns = [[row.check], [row.status.toUpperCase()], wrap(row.found, FOUND_WIDTH), row.fix ? wrap(row.fix, FIX_WIDTH) : ['']];
    const height = Math.max(...columns.map((column) => column.length));
    for (let index = 0; index < height; index += 1) output.push(line(columns.map((column) => column[index] ?? '')));
  }
  const count = (status: Status) => rows.filter((row) => row.status === status).length;
  output.push('', `${rows.length} checks: ${count('pass')} pass, ${count('warn')} warn, ${count('fail')} fail`);
  return `${output.join('\n')}\n`;
}
