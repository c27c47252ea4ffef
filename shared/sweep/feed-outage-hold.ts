import type { FeedOutageConfig } from '../config';
import { logger } from '../observability/logger';
import { countIfAny, MetricName } from '../observability/metrics';
import { beginFeedOutage, endFeedOutage, loadFeedOutages, markFeedOutageSeen, PLATFORM_SCOPE } from '../store/feed-outages';
import { countVehiclesOwnedBy } from '../store/vehicle-state-store';
import { clientCohorts, clientInterrupted, isHeld, outageChanges, platformInterrupted, type SilentVehicle } from './feed-outage';
import type { FeedReading } from './feed-rate';

/** The sweep's view of interrupted feeds in one minute (feed-outage.ts): which vehicles' losses wait. */
export interface FeedOutageHold {
  held: (vehicle: SilentVehicle) => boolean;
  /** Scopes (`platform` or client ids) whose outage began in this sweep, held now, and over. */
  begun: string[];
  holding: string[];
  ended: string[];
}

export async function judgeFeedOutages(
  cohort: readonly SilentVehicle[],
  now: number,
  feed: FeedReading,
  config: FeedOutageConfig,
): Promise<FeedOutageHold> {
  const stored = await loadFeedOutages();
  const known = new Map(stored.map((outage) => [outage.scope, outage]));
  const interrupted = new Map<string, number>();
  if (platformInterrupted(cohort.length, feed, known.has(PLATFORM_SCOPE), config)) interrupted.set(PLATFORM_SCOPE, 0);
  else {
    for (const [client, count] of clientCohorts(cohort, config)) {
      const vehicles = known.get(client)?.vehicles ?? (await countVehiclesOwnedBy(client));
      if (clientInterrupted(count, vehicles, config)) interrupted.set(client, vehicles);
    }
  }
  const changes = outageChanges(stored, interrupted, now, config.FEED_OUTAGE_GRACE_MINUTES * 60_000);

  const begun: string[] = [];
  for (const outage of changes.begin) {
    // another sweep that recorded it first raised the alarm
    if (!(await beginFeedOutage(outage))) continue;
    begun.push(outage.scope);
    logger.error('feed interrupted: connection-loss alerts held until it is back', {
      scope: outage.scope,
      vehiclesFallingSilent: outage.scope === PLATFORM_SCOPE ? cohort.length : countOf(cohort, outage.scope),
      ...(outage.scope === PLATFORM_SCOPE ? { feed } : { clientVehicles: outage.vehicles }),
    });
  }
  for (const scope of changes.seen) await markFeedOutageSeen(scope, now);
  for (const outage of changes.end) {
    await endFeedOutage(outage);
    logger.info('feed back: held connection losses judged again', {
      scope: outage.scope,
      since: new Date(outage.since).toISOString(),
      lastSeenInterrupted: new Date(outage.seenAt).toISOString(),
    });
  }
  countIfAny(MetricName.FeedOutagesBegun, begun.length);
  countIfAny(MetricName.FeedOutages, changes.holding.size);
  return {
    held: (vehicle) => isHeld(vehicle, changes.holding),
    begun,
    holding: [...changes.holding],
    ended: changes.end.map((outage) => outage.scope),
  };
}

const countOf = (cohort: readonly SilentVehicle[], owner: string) => cohort.filter((vehicle) => vehicle.owner === owner).length;
