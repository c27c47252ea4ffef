import { SEVERITIES, type Severity } from '../schemas/severity';

/** The one place delivery reads an alert's severity: the one it was raised with, else its type's default. */
export { severityOf } from '../rules/severity';

/** Whether `severity` is below `minimum` (info < warning < critical). */
export function isBelow(severity: Severity, minimum: Severity): boolean {
  return SEVERITIES.indexOf(severity) < SEVERITIES.indexOf(minimum);
}
