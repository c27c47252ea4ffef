import type { SentEmail } from './emulators';
import type { StoredAlert } from './replay-runner';
import type { ExpectedAlert } from './trace-generator';

/**
 * Compares what a replay produced with what the trace planted: exactly one alert per planted episode per
 * rule, its event time inside the episode window, nothing else; and exactly one e-mail per alert.
 */
export interface AlertVerdict {
  matched: number;
  /** Planted episodes without an alert. */
  missing: ExpectedAlert[];
  /** Planted episodes with more than one alert. */
  duplicated: { episode: ExpectedAlert; alerts: StoredAlert[] }[];
  /** Alerts that belong to no planted episode. */
  unexpected: StoredAlert[];
}

const keyOf = (ruleId: number, vehicleId: number, kind: string) => `${ruleId}|${vehicleId}|${kind}`;

export function judgeAlerts(expected: readonly ExpectedAlert[], alerts: readonly StoredAlert[]): AlertVerdict {
  const episodes = new Map<string, ExpectedAlert[]>();
  for (const episode of expected) {
    const key = keyOf(episode.ruleId, episode.vehicleId, episode.kind);
    episodes.set(key, [...(episodes.get(key) ?? []), episode]);
  }
  const hits = new Map<ExpectedAlert, StoredAlert[]>();
  const unexpected: StoredAlert[] = [];
  for (const alert of alerts) {
    const episode = episodes
      .get(keyOf(alert.ruleId, alert.vehicleId, alert.kind))
      ?.find((candidate) => candidate.from <= alert.time && alert.time <= candidate.to);
    if (!episode) {
      unexpected.push(alert);
      continue;
    }
    hits.set(episode, [...(hits.get(episode) ?? []), alert]);
  }
  const verdict: AlertVerdict = { matched: 0, missing: [], duplicated: [], unexpected };
  for (const episode of expected) {
    const found = hits.get(episode) ?? [];
    if (found.length === 0) verdict.missing.push(episode);
    else if (found.length > 1) verdict.duplicated.push({ episode, alerts: found });
    else verdict.matched++;
  }
  return verdict;
}

export interface EmailVerdict {
  /** Alerts of a vehicle whose e-mail count differs from its alert count. */
  vehiclesWithWrongCount: { vehicleId: number; alerts: number; emails: number }[];
  /** E-mails sent to anyone but the rule's side address. */
  misaddressed: number;
  /** Identical e-mails (same subject and text), i.e. one alert mailed twice. */
  identical: number;
  /** E-mails whose subject names no vehicle of the trace. */
  unattributed: number;
}

/** E-mail subjects name the vehicle (`Vehicle 1001: speeding, 118 km/h`, `PANIC: Vehicle 1001`, ...). */
type Delivered = Pick<SentEmail, 'subject' | 'body'> & { destination: { to: string[] } };

export function judgeEmails(alerts: readonly StoredAlert[], emails: readonly Delivered[], sideEmail: string): EmailVerdict {
  const alertsPerVehicle = new Map<number, number>();
  for (const alert of alerts) alertsPerVehicle.set(alert.vehicleId, (alertsPerVehicle.get(alert.vehicleId) ?? 0) + 1);
  const emailsPerVehicle = new Map<number, number>();
  let unattributed = 0;
  for (const email of emails) {
    const match = /Vehicle (\d+)\b/.exec(email.subject);
    if (!match) {
      unattributed++;
      continue;
    }
    const vehicleId = Number(match[1]);
    emailsPerVehicle.set(vehicleId, (emailsPerVehicle.get(vehicleId) ?? 0) + 1);
  }
  const vehicles = new Set([...alertsPerVehicle.keys(), ...emailsPerVehicle.keys()]);
  const vehiclesWithWrongCount = [...vehicles]
    .map((vehicleId) => ({ vehicleId, alerts: alertsPerVehicle.get(vehicleId) ?? 0, emails: emailsPerVehicle.get(vehicleId) ?? 0 }))
    .filter((entry) => entry.alerts !== entry.emails);
  const contents = new Set(emails.map((email) => `${email.subject}\n${email.body.text ?? email.body.html ?? ''}`));
  return {
    vehiclesWithWrongCount,
    misaddressed: emails.filter((email) => email.destination.to.length !== 1 || email.destination.to[0] !== sideEmail).length,
    identical: emails.length - contents.size,
    unattributed,
  };
}

/** The same for Telegram messages: one per alert, all to the rule's chat, whose text names the vehicle. */
export function judgeTelegrams(alerts: readonly StoredAlert[], messages: readonly { chatId: string; text: string }[], chatId: string): EmailVerdict {
  const asEmails = messages.map((message) => ({ subject: message.text, body: { text: message.text }, destination: { to: [message.chatId] } }));
  return judgeEmails(alerts, asEmails, chatId);
}

/** A few lines that say what went wrong, for assertion messages. */
export function describeVerdict(verdict: AlertVerdict): string {
  const iso = (ms: number) => new Date(ms).toISOString();
  const lines = [
    ...verdict.missing.slice(0, 5).map((e) => `missing ${e.kind} rule ${e.ruleId} vehicle ${e.vehicleId} in [${iso(e.from)}, ${iso(e.to)}]`),
    ...verdict.duplicated
      .slice(0, 5)
      .map(
        ({ episode: e, alerts }) =>
          `duplicated ${e.kind} vehicle ${e.vehicleId} in [${iso(e.from)}, ${iso(e.to)}]: ${alerts.map((a) => iso(a.time)).join(', ')}`,
      ),
    ...verdict.unexpected.slice(0, 5).map((a) => `unexpected ${a.kind} rule ${a.ruleId} vehicle ${a.vehicleId} at ${iso(a.time)}`),
  ];
  return lines.join('\n');
}
