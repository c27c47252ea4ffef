import { zoneClock, type RuleTimeZone } from '../rules/time-zone';
import type { Language } from '../schemas/directory';

function offsetLabel(hours: number): string {
  if (hours === 0) return 'UTC';
  const sign = hours < 0 ? '-' : '+';
  const total = Math.round(Math.abs(hours) * 60);
  const minutes = total % 60;
  return `UTC${sign}${Math.floor(total / 60)}${minutes ? `:${String(minutes).padStart(2, '0')}` : ''}`;
}

/**
 * The time of an event as the rule's owner reads it, in the rule's timezone:
 * `2026-03-01 13:00 (UTC+3)` in English, `01.03.2026 13:00 (UTC+3)` in Russian and Azerbaijani.
 */
export function formatEventTime(iso: string, timezone: RuleTimeZone, language: Language): string {
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) return iso;
  // the wall clock's fields, read from an ISO string of the instant shifted by the zone's offset at it
  const [year, month, day, hour, minute] = new Date(instant.getTime() + zoneClock(timezone).offsetAt(instant.getTime())).toISOString().split(/[-T:]/);
  const label = typeof timezone === 'number' ? offsetLabel(timezone) : timezone;
  const date = language === 2 ? `${year}-${month}-${day}` : `${day}.${month}.${year}`;
  return `${date} ${hour}:${minute} (${label})`;
}
