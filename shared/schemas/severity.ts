import * as z from 'zod';

/**
 * How much an alert matters, lowest first. The severity work puts one on every rule and alert; until then an
 * alert carries none, and delivery reads it through `severityOf` (shared/delivery/severity.ts).
 */
export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export const severitySchema = z.enum(SEVERITIES);
export type Severity = z.infer<typeof severitySchema>;
