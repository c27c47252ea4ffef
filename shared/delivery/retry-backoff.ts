/**
 * The one retry schedule of every alert target, whatever its channel: after a passing problem (a network error, a
 * timeout, 5xx, 408, 429, SES or SNS throttling, Telegram 429/5xx) the next attempt comes after the wait of
 * the attempt that failed, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then 10 h (Svix's shape), so a target gets
 * 8 attempts over about 27 hours. A target still failing after its 8th attempt is given up on.
 *
 * Each wait is drawn uniformly within ±20% of its nominal value (never sooner than 80% of it, and never under
 * 1 s), so targets that failed together (one outage) are not all retried in the same second. A channel that says
 * when to come back (a webhook's Retry-After, Telegram's retry_after) is not tried before then; what it asks
 * beyond the schedule's longest wait is taken as that wait, so a receiver cannot push its alerts past the horizon.
 */
export const RETRY_WAITS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3_600, 5 * 3_600, 10 * 3_600, 10 * 3_600] as const;

/** Attempts one target gets: the first, and one after each wait. */
export const RETRY_ATTEMPTS = RETRY_WAITS_SECONDS.length + 1;

/** Share of each wait the jitter moves it by, either way. */
export const RETRY_JITTER = 0.2;

/**
 * The longest wait a deliveries-queue message can hold (SQS caps visibility changes and delays at 15 minutes):
 * a longer one waits on the alert, on the due index.
 */
export const MAX_QUEUE_WAIT_SECONDS = 15 * 60;

/** The longest wait a channel's own Retry-After may ask for. */
export const MAX_RETRY_AFTER_SECONDS = Math.max(...RETRY_WAITS_SECONDS);

/** From the first attempt to the last, with every wait at its nominal value. */
export const RETRY_HORIZON_SECONDS = RETRY_WAITS_SECONDS.reduce((sum, wait) => sum + wait, 0);

/**
 * Seconds before the next attempt of a target that has had `attempts` attempts (1 after the first), the last
 * one failing for a passing reason; undefined once the schedule is used up. `random` returns a number in [0, 1),
 * as Math.random does.
 */
export function retryDelaySeconds(attempts: number, retryAfterSeconds?: number, random: () => number = Math.random): number | undefined {
  const nominal = RETRY_WAITS_SECONDS[attempts - 1];
  if (nominal === undefined) return undefined;
  const drawn = Math.max(1, Math.round(nominal * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random())));
  const asked = retryAfterSeconds === undefined ? 0 : Math.min(MAX_RETRY_AFTER_SECONDS, Math.ceil(retryAfterSeconds));
  return Math.max(drawn, asked);
}

/** The waits after attempts 1 … 7 as the jitter draws them (seconds): for documents. */
export function retryScheduleRanges(): { nominal: number; min: number; max: number }[] {
  return RETRY_WAITS_SECONDS.map((nominal) => ({
    nominal,
    min: Math.max(1, Math.round(nominal * (1 - RETRY_JITTER))),
    max: Math.round(nominal * (1 + RETRY_JITTER)),
  }));
}

/** `4–6 s`, `1.6–2.4 h`: a range of waits in words, its unit named once when both ends share it. */
export function rangeText(min: number, max: number): string {
  const [low, high] = [spanText(min), spanText(max)];
  const unit = (text: string) => text.split(' ')[1];
  return unit(low) === unit(high) ? `${low.split(' ')[0]}–${high}` : `${low}–${high}`;
}

/** A span in the largest unit that keeps it readable: `5 s`, `30 min`, `2 h`, `27.6 h`. */
export function spanText(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3_600) return `${Number((seconds / 60).toFixed(1))} min`;
  return `${Number((seconds / 3_600).toFixed(1))} h`;
}

/** `5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h`: the nominal waits in words. */
export function retryScheduleText(): string {
  return RETRY_WAITS_SECONDS.map((wait) => spanText(wait)).join(', ');
}
