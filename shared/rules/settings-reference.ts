import { RULE_TYPES, type RuleType } from '../schemas/notification';
import { EPISODE_END_KINDS } from './severity';
import type { SettingReference, TypeReference } from './reference';
import { addressReference } from './address';
import { analogSensorReference } from './analog-sensor';
import { connectionLossReference } from './connection-loss';
import { continuousDrivingReference } from './continuous-driving';
import { deviceAlarmReference } from './device-alarm';
import { discreteSensorReference } from './discrete-sensor';
import { drainReference, fuellingReference } from './fuel-change';
import { geozoneReference } from './geozone';
import { idleReference } from './idle';
import { maintenanceReference } from './maintenance';
import { movementReference } from './movement';
import { panicReference } from './panic';
import { parkingReference } from './parking';
import { speedingReference } from './speeding';

/** Each type's reference, kept beside its evaluator. */
export const SETTINGS_REFERENCE: Readonly<Record<RuleType, TypeReference>> = {
  [RULE_TYPES.geozone]: geozoneReference,
  [RULE_TYPES.speeding]: speedingReference,
  [RULE_TYPES.drain]: drainReference,
  [RULE_TYPES.fuelling]: fuellingReference,
  [RULE_TYPES.panic]: panicReference,
  [RULE_TYPES.connectionLoss]: connectionLossReference,
  [RULE_TYPES.discreteSensor]: discreteSensorReference,
  [RULE_TYPES.analogSensor]: analogSensorReference,
  [RULE_TYPES.address]: addressReference,
  [RULE_TYPES.idle]: idleReference,
  [RULE_TYPES.maintenance]: maintenanceReference,
  [RULE_TYPES.parking]: parkingReference,
  [RULE_TYPES.movement]: movementReference,
  [RULE_TYPES.continuousDriving]: continuousDrivingReference,
  [RULE_TYPES.deviceAlarm]: deviceAlarmReference,
};

/** Keys every type takes besides its own. */
export const COMMON_SETTINGS_REFERENCE: readonly SettingReference[] = [
  {
    key: 'messageSubject',
    default: null,
    meaning: "the rule's own subject line for its notifications, with {{placeholder}} fields (at most 200 characters); default: the template's",
  },
  {
    key: 'messageTemplate',
    default: null,
    meaning: "the rule's own notification text, with {{placeholder}} fields, plain text (at most 2000 characters); default: the template's",
  },
  {
    key: 'schedule',
    default: null,
    meaning:
      "hours in which events raise alerts, in the rule's timezone (an IANA name follows daylight saving), e.g. `Mon-Fri 08:00-18:00; Sat 09:00-13:00`: " +
      'clauses separated by `;`, each days (Mon…Sun, ranges Mon-Fri, lists Mon, Wed; none: every day) and windows HH:MM-HH:MM separated by commas; ' +
      'an end of 24:00 is midnight, an end before the start (22:00-06:00) runs into the next day. An episode that starts inside the schedule alerts ' +
      'even if confirmed after its end; one entirely outside raises nothing; a connection loss that begins outside is reported when the schedule ' +
      'opens, if still lost. Default: none (always)',
    example: 'Mon-Fri 08:00-18:00; Sat 09:00-13:00',
  },
  {
    key: 'scope',
    default: 'listed',
    meaning:
      "which vehicles the rule watches: `listed`, the vehicles in vehicleIds; `client`, every vehicle registered to the rule's client " +
      '(parentId); `subtree`, those of that client and of every client below it. With `client` or `subtree`, vehicleIds must be empty; ' +
      'a vehicle registered later is watched at once, one moved to another client leaves the rule at once',
    example: 'subtree',
  },
  {
    key: 'zones',
    default: null,
    meaning:
      "a zone condition: geozone ids separated by commas, zones of the rule's client or of a client above it. Events raise alerts only " +
      "while the vehicle is inside (or, with zoneMode outside, outside) at least one of them, judged at the event's position with a 30 m " +
      'border hysteresis; the rule keeps evaluating either way. Default: none (everywhere)',
    example: '12,14',
  },
  {
    key: 'zoneMode',
    default: 'inside',
    meaning: '`inside` or `outside`: whether the zone condition wants the vehicle inside one of the zones or outside all of them (needs zones)',
    example: 'outside',
  },
  {
    key: 'autoCloseHours',
    default: '0',
    meaning:
      'hours after which a stored alert still open or acknowledged closes by itself (whole hours, 0–720; 0: never). Counted from when the alert ' +
      'was raised; an alert cleared or closed before then stays as it is',
    example: '24',
  },
  {
    key: 'cooldown',
    default: '0',
    meaning:
      "seconds (0–86400) after an alert of the rule for a vehicle during which the rule's further alerts for that vehicle are held " +
      '(recorded in the suppressed log as `cooldown`); reminders and cleared messages are not held by it',
    example: '600',
  },
  {
    key: 'maxPerDay',
    default: '0',
    meaning:
      "alerts of the rule per vehicle and day in the rule's timezone, reminders included (0: no cap, at most 1000). The first alert over the cap " +
      "is replaced by one `limitReached` notice saying when alerts resume (local midnight); the rest of that day's are held (`maxPerDay`)",
    example: '20',
  },
  {
    key: 'repeat',
    default: '0',
    meaning:
      "minutes (0: off, at most 10080) between reminders (`reminder`, with the episode's duration so far) while an alerted episode lasts: " +
      "speeding, idle, parking, analog sensor, outside after a reported geozone exit, connection loss; raised by the vehicle's next message once the interval has passed, and for a lost connection by the sweep",
    example: '30',
  },
  {
    key: 'notifyCleared',
    default: 'false',
    meaning:
      'also send a `cleared` message when an alerted episode ends (speed back under the limit, idling or parking over, sensor back in range, back inside a geozone after a reported exit); ' +
      "connection loss sends its `connectionRestored` (type 7's `notifyRestored` is the same switch)",
    example: 'true',
  },
  {
    key: 'severity',
    default: null,
    meaning:
      "how much the rule's alerts matter: `info`, `warning` or `critical`. Left out: the type's default, given with each type " +
      "(a device alarm's by its alarms). Decided when an alert is raised and kept with it, so a later edit of the rule leaves " +
      'the alerts already raised as they were. The e-mail subject and the Telegram message mark `warning` and `critical`; ' +
      `the history filters by it; webhooks and push carry it. A notice that an episode ended (${EPISODE_END_KINDS.join(', ')}) is always \`info\``,
    example: 'critical',
  },
  {
    key: 'escalateAfter',
    default: '0',
    meaning:
      'minutes (whole, 0–1440; 0: off) after which a stored alert still `open` (not acknowledged, cleared or closed) goes once more, as ' +
      '`escalated`, to the escalation targets (escalateUserIds, escalateTelegrams, escalateEmails; at least one needed) and is marked escalated. ' +
      'Only for rules with `stored: true` (else 400 naming settings.escalateAfter)',
    example: '15',
  },
  {
    key: 'escalateUserIds',
    default: null,
    meaning:
      "users an escalation goes to, ids separated by commas (at most 20): by e-mail, their linked Telegram chats and their phones; each must be in the rule owner's scope",
    example: '8d3c0f5e-2b1a-4c6d-9e7f-0a1b2c3d4e5f',
  },
  {
    key: 'escalateTelegrams',
    default: null,
    meaning: "Telegram chats an escalation goes to, ids separated by commas (at most 20); each must be linked by a user of the rule owner's scope",
    example: '123456789',
  },
  {
    key: 'escalateEmails',
    default: null,
    meaning:
      'side addresses an escalation goes to, separated by commas (at most 20); like sideEmails, each must confirm its link before it receives anything',
    example: 'duty@example.com',
  },
  {
    key: 'maxEventAge',
    default: null,
    meaning:
      'seconds (whole, 0–604800; 0: any age) a message may be old when evaluated, by its deviceTime, for its events to become alerts. ' +
      "An older one's events are not sent: they are recorded in the suppressed log as `tooOld`, with their age, and spend no cooldown " +
      "or maxPerDay; the rule's state still moves on, so readings a terminal stored while out of coverage and sends later raise nothing " +
      "late, and the next current reading is judged as usual. Events raised by time passing, and a connection loss rule's, are never aged. " +
      "Default: the deployment's (`-c maxEventAgeSeconds`, 900 unless set)",
    example: '300',
  },
  {
    key: 'smsMinSeverity',
    default: 'critical',
    meaning:
      'the least severity an alert must have to go by SMS when the rule has toSms (`info`, `warning`, `critical`), judged by the ' +
      'severity the alert was raised with; SMS cost money per message and wake people, so by default only critical alerts go. An ' +
      'escalation level with `sms` is not held back by it (escalateMinSeverity decides what escalates)',
    example: 'warning',
  },
  {
    key: 'escalateMinSeverity',
    default: 'info',
    meaning:
      'the least severity an alert must have to be escalated (`info`, `warning`, `critical`; `info`: every alert), judged by the ' +
      'severity the alert was raised with; needs escalation or escalateAfter (else 400 naming settings.escalateMinSeverity)',
    example: 'critical',
  },
  {
    key: 'escalation',
    default: null,
    meaning:
      'an escalation chain: a JSON array of up to 5 levels `{after, userIds?, telegrams?, emails?, rotaIds?, sms?}` (or its JSON text; ' +
      'answered as its JSON text, as numbers are answered as strings). Each level fires once, `after` minutes (1–1440, each later than ' +
      'the one before) after the alert while the alert is still `open`, as an `escalated` alert to its targets: users (by e-mail, their ' +
      "linked chats and phones), chats linked in the rule owner's scope, side addresses, and rotas (whoever is on call when the level " +
      'fires). `sms: true` (default false) also texts its users and on-call people with a verified phone number, whatever smsMinSeverity ' +
      '(needs userIds or rotaIds). Acknowledging, clearing or closing the alert cancels the levels not yet fired. Needs `stored: true`; ' +
      'not with escalateAfter, which is the one-level chain it stays, without SMS (400 naming settings.escalation)',
    example: '[{"after": 10, "userIds": ["8d3c0f5e-2b1a-4c6d-9e7f-0a1b2c3d4e5f"], "sms": true}, {"after": 30, "emails": ["duty@example.com"]}]',
  },
  {
    key: 'escalationRepeat',
    default: '0',
    meaning:
      "times (0–3) the whole chain runs again while nobody acknowledged: round r fires each level r × (the last level's after) later; " +
      'needs escalation or escalateAfter',
    example: '1',
  },
];
