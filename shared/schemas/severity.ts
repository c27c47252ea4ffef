import * as z from 'zod';

/**
 * How much an alert matters, least first. Decided when the alert is raised, from its rule's `settings.severity` or
 * the type's default (shared/rules/severity.ts), and kept with the alert: a later edit of the rule does not rewrite it.
 */
export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export const severitySchema = z.enum(SEVERITIES);
export type Severity = z.infer<typeof severitySchema>;

/** Whether `severity` is `least` or above it. */
export const atLeast = (severity: Severity, least: Severity): boolean => SEVERITIES.indexOf(severity) >= SEVERITIES.indexOf(least);
