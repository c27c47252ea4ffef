import * as z from 'zod';

export const statusSchema = z.enum(['pass', 'warn', 'fail']);
export type Status = z.infer<typeof statusSchema>;

/** One line of the preflight table: what a check found, and the command that fixes it when it did not pass. */
export const rowSchema = z.object({
  check: z.string().min(1),
  status: statusSchema,
  found: z.string().min(1),
  fix: z.string().min(1).optional(),
});
export type Row = z.infer<typeof rowSchema>;

/** One thing a check found; a check that finds several reports them as one row. */
export interface Finding {
  status: Status;
  found: string;
  fix?: string;
}

const RANK: Record<Status, number> = { pass: 0, warn: 1, fail: 2 };

/** The row of several findings: the worst status, every finding, and the fixes of those that did not pass. */
export function rowOf(check: string, findings: readonly [Finding, ...Finding[]]): Row {
  const status = findings.reduce<Status>((worst, finding) => (RANK[finding.status] > RANK[worst] ? finding.status : worst), 'pass');
  const fixes = [...new Set(findings.flatMap((finding) => (finding.status !== 'pass' && finding.fix ? [finding.fix] : [])))];
  return rowSchema.parse({
    check,
    status,
    found: findings.map((finding) => finding.found).join('; '),
    ...(fixes.length > 0 ? { fix: fixes.join('; ') } : {}),
  });
}

export function exitCodeOf(rows: readonly Row[]): number {
  return rows.some((row) => row.status === 'fail') ? 1 : 0;
}
