import { readConfig, silenceLimitSchema } from '../config';
import { zoneClock, type RuleTimeZone } from '../rules/time-zone';
import type { Alert } from '../schemas/alert';
import type { Language } from '../schemas/directory';
import type { StoredSilence } from '../schemas/silence';
import { ClientLimitError } from '../store/client-counts';
import { getRule } from '../store/rules-store';
import { createSilence, derivedSilenceId } from '../store/silences-store';
import { formatEventTime } from './format-time';
import { renderLifecycleText } from './render';

/**
 * The two mutes an alert offers next to its acknowledge action (the Telegram buttons, the e-mail's links): its
 * vehicle for an hour, or its rule until 08:00 the next day in the rule's timezone (the zone the client's rule
 * writes its times in). Each makes a maintenance silence of the alert's client, under an id derived from the alert
 * and the action, so pressing or posting again makes nothing new and answers who muted and until when. Who may
 * mute is checked by the caller, as for acknowledging.
 */
export const MUTE_ACTIONS = ['vehicle', 'rule'] as const;
export type MuteAction = (typeof MUTE_ACTIONS)[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const MORNING_HOUR = 8;

/** 08:00 of the day after `now`'s, local time in the zone. */
export function tomorrowMorning(timezone: RuleTimeZone, now: number): number {
  const clock = zoneClock(timezone);
  const localDay = Math.floor((now + clock.offsetAt(now)) / DAY_MS);
  const local = (localDay + 1) * DAY_MS + MORNING_HOUR * HOUR_MS;
  const guess = local - clock.offsetAt(now);
  return local - clock.offsetAt(guess);
}

export type MuteResult =
  { outcome: 'muted' | 'already'; silence: StoredSilence; timezone: RuleTimeZone; action: MuteAction; ruleName: string } | { outcome: 'limit' };

/** Mutes what the alert's action names, as `by` (a login, or the address an e-mail went to). */
export async function muteFromAlert(alert: Alert, action: MuteAction, by: string, via: 'telegram' | 'email', now: number): Promise<MuteResult> {
  const timezone = (await getRule(alert.ruleId))?.timezone ?? 3;
  const to = action === 'vehicle' ? now + HOUR_MS : tomorrowMorning(timezone, now);
  try {
    const { created, silence } = await createSilence(
      {
        id: derivedSilenceId(alert.parentId, alert.alertId, action),
        parentId: alert.parentId,
        vehicleIds: action === 'vehicle' ? [alert.vehicleId] : [],
        ruleIds: action === 'rule' ? [alert.ruleId] : [],
        geozoneIds: [],
        from: new Date(now).toISOString(),
        to: new Date(to).toISOString(),
        reason: `muted from the ${via === 'telegram' ? 'Telegram message' : 'e-mail'} of alert ${alert.alertId} (${alert.ruleName})`,
        schedule: null,
        timezone,
        createdAt: new Date(now).toISOString(),
        createdBy: by,
        via,
        endedAt: null,
        endedBy: null,
      },
      readConfig(silenceLimitSchema()).LIMIT_SILENCES_PER_CLIENT,
    );
    return { outcome: created ? 'muted' : 'already', silence, timezone, action, ruleName: alert.ruleName };
  } catch (error) {
    if (error instanceof ClientLimitError) return { outcome: 'limit' };
    throw error;
  }
}

/** "Muted by … until …", or "Already muted …", in the reader's language and the rule's timezone. */
export function mutedText(result: Extract<MuteResult, { silence: StoredSilence }>, language: Language): string {
  return renderLifecycleText('muted', language, {
    already: result.outcome === 'already' ? 'yes' : '',
    by: result.silence.createdBy,
    until: formatEventTime(result.silence.to, result.timezone, language),
    vehicle: result.action === 'vehicle' ? String(result.silence.vehicleIds[0] ?? '') : '',
    rule: result.action === 'rule' ? result.ruleName : '',
  }).subject;
}
