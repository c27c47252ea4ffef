import type { StoredUser } from '../schemas/directory';
import { PREFERENCE_CHANNELS, type PreferenceChannel } from '../schemas/preferences';
import type { Severity } from '../schemas/severity';
import { preferencesOf } from '../store/user-preferences';
import { quietHoursEnd } from './quiet-hours';
import { isBelow } from './severity';
import type { DeliveryPlan, DeliveryTarget, SkippedTarget } from './targets';

/** The plan as the recipients' preferences leave it, with the targets that wait for their user's quiet hours to end. */
export interface PreferredPlan extends DeliveryPlan {
  /** E-mail and Telegram targets to hold for their user's quiet-hours digest, by key: when those quiet hours end (epoch ms). */
  quietUntil: ReadonlyMap<string, number>;
}

const isPreferenceChannel = (channel: string): channel is PreferenceChannel => (PREFERENCE_CHANNELS as readonly string[]).includes(channel);

/** What a user's preferences do to an alert on one channel at a time: hold it, skip it, or nothing (null). */
export type PreferenceVerdict =
  | { reason: 'minSeverity'; minimum: Severity }
  /** Inside quiet hours until `until` (epoch ms): e-mail and Telegram wait for the digest, push is skipped. */
  | { reason: 'quietHours'; until: number };

/**
 * The one judgement of a user's preferences on an alert of `severity` on `channel` at `now`: below the user's
 * least severity on the channel, the channel is skipped; inside quiet hours, anything but critical waits.
 * Pure: no I/O.
 */
export function preferenceVerdict(
  user: Pick<StoredUser, 'preferences'>,
  channel: PreferenceChannel,
  severity: Severity,
  now: number,
): PreferenceVerdict | null {
  const preferences = preferencesOf(user);
  const minimum = preferences.minSeverity[channel];
  if (isBelow(severity, minimum)) return { reason: 'minSeverity', minimum };
  const until = preferences.quietHours && severity !== 'critical' ? quietHoursEnd(preferences.quietHours, now) : null;
  return until === null ? null : { reason: 'quietHours', until };
}

/**
 * Applies each recipient user's preferences to its targets, at `now` (preferenceVerdict):
 * - below the user's least severity on the channel: skipped (`minSeverity`);
 * - inside the user's quiet hours, unless critical: an e-mail or Telegram target stays in the plan but is to be held
 *   for the digest sent when they end (`quietUntil`); a push target is skipped (`quietHours`), since a push
 *   notification the next morning would only repeat what the digest says.
 * Targets that came from no user (side addresses, a rule's own chats, webhooks) are left as they are.
 * Pure: no I/O.
 */
export function applyPreferences(plan: DeliveryPlan, users: readonly StoredUser[], severity: Severity, now: number): PreferredPlan {
  const byId = new Map(users.map((user) => [user.id, user]));
  const targets: DeliveryTarget[] = [];
  const skipped: SkippedTarget[] = [...plan.skipped];
  const quietUntil = new Map<string, number>();
  for (const target of plan.targets) {
    const user = target.userId === undefined ? undefined : byId.get(target.userId);
    const verdict = user && isPreferenceChannel(target.channel) ? preferenceVerdict(user, target.channel, severity, now) : null;
    if (!user || !verdict) {
      targets.push(target);
      continue;
    }
    if (verdict.reason === 'minSeverity') {
      skipped.push({
        key: target.key,
        channel: target.channel,
        reason: `the alert is ${severity}, below the ${verdict.minimum} user ${user.login} takes on ${target.channel}`,
        preference: 'minSeverity',
      });
      continue;
    }
    if (target.channel === 'push') {
      skipped.push({
        key: target.key,
        channel: target.channel,
        reason: `quiet hours of user ${user.login} until ${new Date(verdict.until).toISOString()}; the alert is ${severity}`,
        preference: 'quietHours',
      });
      continue;
    }
    quietUntil.set(target.key, verdict.until);
    targets.push(target);
  }
  return { ...plan, targets, skipped, quietUntil };
}
