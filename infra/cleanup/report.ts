import type { Leftover } from './kinds';
import type { Outcome, OutcomeStatus } from './remove';

const OTHER_KIND = 'other';

/** Lines of one table: kind, id, then what happens to it, with the first two columns aligned over all leftovers. */
export function lineFormatter(leftovers: readonly Leftover[]): (leftover: Leftover, text: string) => string {
  const kindWidth = Math.max(...leftovers.map((leftover) => (leftover.kind ?? OTHER_KIND).length));
  const idWidth = Math.max(...leftovers.map((leftover) => leftover.id.length));
  return (leftover, text) => `  ${(leftover.kind ?? OTHER_KIND).padEnd(kindWidth)}  ${leftover.id.padEnd(idWidth)}  ${text}\n`;
}

/** The tagging API can list a resource for a while after it was deleted, so a kind left alone may be gone already. */
export const LEFT_ALONE_NOTE =
  'A resource of another kind is left alone: check whether it still exists (the tagging API lists deleted resources for a while) and remove it by hand.\n';

const SUMMARY: Record<OutcomeStatus, string> = {
  removed: 'removed',
  gone: 'already gone',
  skipped: 'already scheduled',
  left: 'left alone',
  failed: 'failed',
};

export function summary(outcomes: readonly Outcome[]): string {
  const counts = (Object.keys(SUMMARY) as OutcomeStatus[])
    .map((status) => [status, outcomes.filter((outcome) => outcome.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${SUMMARY[status]}`);
  return `Done: ${counts.join(', ')}.\n`;
}
