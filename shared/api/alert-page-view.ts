import type { AlertLink } from '../auth/alert-link-token';
import { alertNotification } from '../delivery/alert-notification';
import { formatEventTime } from '../delivery/format-time';
import { renderLifecycleText } from '../delivery/render';
import { openStreetMapUrl } from '../delivery/template-data';
import { SETTINGS_REFERENCE } from '../rules/settings-reference';
import { severityOf } from '../rules/severity';
import type { RuleTimeZone } from '../rules/time-zone';
import type { Alert, DeliveryStatus } from '../schemas/alert';
import type { RuleType } from '../schemas/notification';
import type { Channel } from '../channels/outcome';
import { getAlert } from '../store/alerts/alert-lifecycle';
import { escalationIdFor } from '../store/alert-id';
import { getVehicles } from '../store/directory-store';
import { getRule } from '../store/rules-store';
import { loadVehicleState } from '../store/vehicle-state-store';
import { ALERT_PAGE_WORDS, type AlertPageWords } from './alert-page-words';
import { page, PAGE_LANGUAGE } from './link-page';

/**
 * The alert's page: what happened (its notification's subject and text, kind, severity), when (the rule's time
 * zone and UTC), where (with an OpenStreetMap link, as the e-mail has), the vehicle and its last known position
 * (from the vehicle's state item, which the api function already reads for registrations), the rule, the state
 * with every change (who, how, when, their comment), who was notified on which channel (the alert's
 * `deliveries`), its escalation and to whom it went, and the forms the link allows. Each read is one item;
 * everything is written in the link's language.
 */

/** What the last POST did, shown above the alert. */
export interface PageNotice {
  text: string;
  refusal: boolean;
}

interface Delivered {
  channel: string;
  to: string;
  status: string;
  at: string;
}

const position = (latitude: number, longitude: number) => ({
  text: `${latitude.toFixed(5)}, ${longitude.toFixed(5)}`,
  url: openStreetMapUrl(latitude, longitude),
});

function delivered(deliveries: Alert['deliveries'], words: AlertPageWords, at: (iso: string) => string): Delivered[] {
  return Object.entries(deliveries).map(([key, status]: [string, DeliveryStatus]) => {
    const colon = key.indexOf(':');
    const channel = key.slice(0, colon) as Channel;
    const reason = status.reason ? ` (${words.preferences[status.reason]})` : '';
    return {
      channel: words.channels[channel] ?? channel,
      to: key.slice(colon + 1),
      status: `${words.statuses[status.status]}${reason}`,
      at: at(status.at),
    };
  });
}

/** The escalation's lines: when it went and to whom, or when it is due; nothing for an alert that never escalates. */
async function escalation(alert: Alert, words: AlertPageWords, at: (iso: string) => string) {
  if (alert.escalatedAt) {
    const escalated = await getAlert(escalationIdFor(alert.alertId));
    return { text: words.escalated(at(alert.escalatedAt)), deliveries: escalated ? delivered(escalated.deliveries, words, at) : [] };
  }
  if (alert.escalateAt && alert.state === 'open') return { text: words.escalates(at(alert.escalateAt)), deliveries: [] };
  return undefined;
}

export async function alertPage(alert: Alert, link: AlertLink, notice?: PageNotice): Promise<string> {
  const lang = PAGE_LANGUAGE[link.language];
  const words = ALERT_PAGE_WORDS[lang];
  const [rule, [vehicle], vehicleState] = await Promise.all([
    getRule(alert.ruleId),
    getVehicles([alert.vehicleId]),
    loadVehicleState(alert.vehicleId),
  ]);
  const timezone: RuleTimeZone = rule?.timezone ?? 0;
  const at = (iso: string) => formatEventTime(iso, timezone, link.language);
  const vehicleName = vehicle?.name ?? `Vehicle ${alert.vehicleId}`;
  const notification = alertNotification(alert, rule ?? { settings: {}, timezone }, vehicleName)(link.language);
  const severity = severityOf(alert);
  const { event } = alert;
  const last = vehicleState.state?.lastPosition;
  const final = alert.state === 'cleared' || alert.state === 'closed';
  const actions = {
    acknowledge: alert.stored && alert.state === 'open',
    close: alert.stored && !final && link.userId !== undefined,
    mute: link.userId !== undefined,
  };
  return page('alert', {
    lang,
    title: notification.subject,
    t: words,
    notice,
    severity: { level: severity, word: words.severities[severity] },
    kind: event.kind,
    text: notification.text,
    time: { local: at(event.time), utc: formatEventTime(event.time, 0, link.language), raised: at(alert.createdAt) },
    position: event.latitude !== null && event.longitude !== null ? position(event.latitude, event.longitude) : undefined,
    vehicle: { name: vehicleName, id: alert.vehicleId },
    lastPosition: last ? { ...position(last.latitude, last.longitude), at: at(last.deviceTime), speed: String(Math.round(last.speed)) } : undefined,
    rule: { name: alert.ruleName, id: alert.ruleId, type: `${alert.ruleType} · ${SETTINGS_REFERENCE[alert.ruleType as RuleType]?.name ?? '?'}` },
    stored: alert.stored,
    state: words.states[alert.state],
    lifecycle: alert.lifecycle.map((entry) => ({
      text: words.entry(words.states[entry.state], entry.by, words.via[entry.via], at(entry.at)),
      comment: entry.comment,
    })),
    deliveries: delivered(alert.deliveries, words, at),
    escalation: await escalation(alert, words, at),
    actions: { ...actions, needUser: link.userId === undefined && !final, none: !actions.acknowledge && !actions.close && !actions.mute },
    muteVehicle: renderLifecycleText('muteVehicleAction', link.language, {}).subject,
    muteRule: renderLifecycleText('muteRuleAction', link.language, {}).subject,
  });
}
