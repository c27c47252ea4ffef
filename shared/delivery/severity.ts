import type { Alert } from '../schemas/alert';
import { SEVERITIES, type Severity } from '../schemas/severity';

/** What an alert without a severity (raised before severities existed) counts as. */
export const DEFAULT_SEVERITY: Severity = 'warning';

/** The one place delivery reads an alert's severity. */
export function severityOf(alert: Pick<Alert, 'severity'>): Severity {
  return alert.severity ?? DEFAULT_SEVERITY;
}

/** Whether `severity` is below `minimum` (info < warning < critical). */
export function isBelow(severity: Severity, minimum: Severity): boolean {
  return SEVERITIES.indexOf(severity) < SEVERITIES.indexOf(minimum);
}
