import type { Language } from '../schemas/directory';

/** A rule's timezone: hours from UTC (3 = UTC+3) or an IANA zone name. */
export type RuleTimezone = number | string;

function offsetLabel(hours: number): string {
  if (hours === 0) return 'UTC';
  const sign = hours < 0 ? '-' : '+';
  const total = Math.round(Math.abs(hours) * 60);
  const minutes = total % 60;
  return `UTC${sign}${Math.floor(total / 60)}${minutes ? `:${String(minutes).padStart(2, '0')}` : ''}`;
}

/** Wall-clock parts of an instant in a zone, through Intl so that daylight-saving rules are right. */
function wallClock(instant: Date, timeZone: string) {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((candidate) => candidate.type === type)?.value ?? '';
  return { year: part('year'), month: part('month'), day: part('day'), hour: part('hour'), minute: part('minute') };
}

/**
 * The time of an event as the rule's owner reads it, in the rule's timezone:
 * `2026-03-01 13:00 (UTC+3)` in English, `01.03.2026 13:00 (UTC+3)` in Russian and Azerbaijani.
 */
export function formatEventTime(iso: string, timezone: RuleTimezone, language: Language): string {
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) return iso;
  const clock =
    typeof timezone === 'number'
      ? wallClock(new Date(instant.getTime() + timezone * 3_600_000), 'UTC')
      : wallClock(instant, timezone);
  const label = typeof timezone === 'number' ? offsetLabel(timezone) : timezone;
  const date = language === 2 ? `${clock.year}-${clock.month}-${clock.day}` : `${clock.day}.${clock.month}.${clock.year}`;
  return `${date} ${clock.hour}:${clock.minute} (${label})`;
}
