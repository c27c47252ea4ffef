import type { StoredUser } from '../schemas/directory';
import { PREFERENCE_CHANNELS, type PreferenceChannel } from '../schemas/preferences';
import type { Severity } from '../schemas/severity';
import { preferencesOf } from '../store/user-preferences';
import { isBelow } from './severity';
import type { DeliveryPlan, DeliveryTarget, SkippedTarget } from './targets';

const isPreferenceChannel = (channel: string): channel is PreferenceChannel => (PREFERENCE_CHANNELS as readonly string[]).includes(channel);

/**
 * The plan as the recipients' own preferences leave it: a target of a recipient user on a channel whose least
 * severity the alert does not reach is skipped (`minSeverity`). Targets that came from no user (side addresses,
 * a rule's own chats, webhooks) are left as they are. Pure: no I/O.
 */
export function applyPreferences(plan: DeliveryPlan, users: readonly StoredUser[], severity: Severity): DeliveryPlan {
  const byId = new Map(users.map((user) => [user.id, user]));
  const targets: DeliveryTarget[] = [];
  const skipped: SkippedTarget[] = [...plan.skipped];
  for (const target of plan.targets) {
    const user = target.userId === undefined ? undefined : byId.get(target.userId);
    if (!user || !isPreferenceChannel(target.channel)) {
      targets.push(target);
      continue;
    }
    const minimum = preferencesOf(user).minSeverity[target.channel];
    if (isBelow(severity, minimum)) {
      skipped.push({
        key: target.key,
        channel: target.channel,
        reason: `the alert is ${severity}, below the ${minimum} user ${user.login} takes on ${target.channel}`,
        preference: 'minSeverity',
      });
    } else targets.push(target);
  }
  return { ...plan, targets, skipped };
}
