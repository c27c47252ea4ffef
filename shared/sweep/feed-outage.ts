import type { FeedOutageConfig } from '../config';
import { PLATFORM_SCOPE, type FeedOutage } from '../store/feed-outages';
import type { FeedReading } from './feed-rate';

/**
 * When the telematics platform stops sending, for everyone or for one client, every vehicle it stopped for
 * falls silent within the same minute, and the sweep would raise a connection loss for each. It takes such a
 * mass silence for an interrupted feed instead: one operations alarm, and the vehicles' connection-loss alerts
 * held until the feed has been back for a grace period, when each held vehicle is judged again by its stored
 * last seen: one that reported meanwhile raises nothing, one still silent is reported then, once.
 *
 * The signals are counts the sweep already has, so the work per minute does not grow with the platform:
 * - the cohort: vehicles whose silence deadline has passed or passes within the next minute (the sweep reads
 *   them anyway; the next minute is counted too, so that a cohort split by the sweep's tick is seen whole). A
 *   held vehicle keeps its passed deadline, so it stays in the cohort until it reports again;
 * - the whole platform: the input queue's message rate (NumberOfMessagesSent, feed-rate.ts). A cohort of at
 *   least `FEED_OUTAGE_MIN_VEHICLES` while the rate has fallen by `FEED_OUTAGE_SHARE` from the busiest minute of
 *   the last quarter hour is an outage. The rate, not a count of vehicles, says how much of the platform went
 *   quiet, and it cannot be mistaken for evaluate being slow (messages then still arrive, and wait);
 * - one client: its share of the cohort (each index entry carries its vehicle's owner) over the vehicles it
 *   owns, counted on the `byOwner` index only for a client with at least `FEED_OUTAGE_MIN_VEHICLES` in the
 *   cohort, that is only when such a silence happens, and kept with the outage while it lasts.
 * A few vehicles going silent stay under the minimum and are reported at once, as before.
 */
export interface SilentVehicle {
  vehicleId: number;
  silentAt: number;
  owner: string | null;
}

export function platformInterrupted(cohort: number, feed: FeedReading, ongoing: boolean, config: FeedOutageConfig): boolean {
  if (config.FEED_OUTAGE_SHARE === 0) return false;
  switch (feed.kind) {
    case 'unmonitored':
      return false;
    // a reading lost during an outage does not end it
    case 'unavailable':
      return ongoing;
    case 'measured':
      return cohort >= config.FEED_OUTAGE_MIN_VEHICLES && feed.lastMinute <= (1 - config.FEED_OUTAGE_SHARE) * feed.busiestMinute;
  }
}

export function clientInterrupted(cohort: number, vehicles: number, config: FeedOutageConfig): boolean {
  return config.FEED_OUTAGE_SHARE > 0 && cohort >= config.FEED_OUTAGE_MIN_VEHICLES && cohort >= config.FEED_OUTAGE_SHARE * vehicles;
}

/** Clients with at least the minimum of vehicles in the cohort, and how many each has there. */
export function clientCohorts(cohort: readonly SilentVehicle[], config: FeedOutageConfig): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { owner } of cohort) if (owner !== null) counts.set(owner, (counts.get(owner) ?? 0) + 1);
  return new Map([...counts].filter(([, count]) => count >= config.FEED_OUTAGE_MIN_VEHICLES));
}

export interface OutageChanges {
  /** Outages seen for the first time: each raises the alarm. */
  begin: FeedOutage[];
  /** Outages still seen. */
  seen: string[];
  /** Outages whose feed has been back for the grace period: their vehicles are judged again. */
  end: FeedOutage[];
  /** Scopes whose connection losses are held in this sweep. */
  holding: Set<string>;
}

/** What the outages become, given the scopes interrupted now (scope → its vehicles, 0 for the platform). Pure. */
export function outageChanges(stored: readonly FeedOutage[], interrupted: ReadonlyMap<string, number>, now: number, graceMs: number): OutageChanges {
  const known = new Map(stored.map((outage) => [outage.scope, outage]));
  const changes: OutageChanges = { begin: [], seen: [], end: [], holding: new Set(interrupted.keys()) };
  for (const [scope, vehicles] of interrupted) {
    if (known.has(scope)) changes.seen.push(scope);
    else changes.begin.push({ scope, since: now, seenAt: now, vehicles });
  }
  for (const outage of stored) {
    if (interrupted.has(outage.scope)) continue;
    if (now - outage.seenAt >= graceMs) changes.end.push(outage);
    else changes.holding.add(outage.scope);
  }
  return changes;
}

/** Whether a vehicle's connection loss is held while `holding` lasts. */
export function isHeld(vehicle: SilentVehicle, holding: ReadonlySet<string>): boolean {
  return holding.has(PLATFORM_SCOPE) || (vehicle.owner !== null && holding.has(vehicle.owner));
}
