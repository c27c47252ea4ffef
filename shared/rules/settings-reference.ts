import { SEVERITIES } from '../schemas/alert';
import { RULE_TYPES, type RuleType } from '../schemas/notification';
import { ALARM_SEVERITY, EPISODE_END_KINDS, TYPE_SEVERITY } from './severity';

/**
 * What each rule type's `settings` keys mean and default to, for people: the OpenAPI document and the 400
 * answers are written from it. The evaluators' schemas are what decides; a test checks that every key here is
 * one the schema knows, that every key the schema knows is here, and that each default is the schema's own.
 */
export interface SettingReference {
  key: string;
  /** The value used when the key is left out, as the string it would be written as; null when there is none. */
  default: string | null;
  meaning: string;
  /** A valid value, where the key's values have a form of their own. */
  example?: string;
}

export interface TypeReference {
  name: string;
  events: string;
  settings: SettingReference[];
  /** Rules between settings, and between settings and the rule's other fields. */
  constraints: string[];
  /** A minimal valid `settings` map (only what is required). */
  example: Record<string, string>;
}

const fuel = (kind: 'drain' | 'fuelling'): TypeReference => ({
  name: kind,
  events: kind,
  settings: [
    { key: 'parameter', default: 'fuel', meaning: 'message parameter with the fuel level, litres' },
    { key: 'threshold', default: '10', meaning: 'smallest change of the filtered level that counts, litres (0.1–100000)' },
    { key: 'window', default: '5', meaning: 'readings in the median filter (odd, 1–31)' },
    { key: 'onlyParked', default: 'true', meaning: 'watch only while parked (true/false)' },
    { key: 'parkedSpeed', default: '5', meaning: 'km/h below which the vehicle is parked (0–200)' },
    { key: 'referenceWindow', default: '900', meaning: 'seconds within which the change must happen (60–86400)' },
    { key: 'settle', default: '120', meaning: 'seconds without further change before reporting (0–86400)' },
  ],
  constraints: ['parkedSpeed must be above 0 while onlyParked is true'],
  example: {},
});

export const SETTINGS_REFERENCE: Readonly<Record<RuleType, TypeReference>> = {
  0: {
    name: 'geozone entry/exit',
    events: 'zoneEntry, zoneExit',
    settings: [
      { key: 'mode', default: 'both', meaning: 'which crossings alert: entry, exit or both' },
      { key: 'margin', default: '30', meaning: 'hysteresis in metres around the border against GPS jitter (0–10000)' },
      { key: 'minDwell', default: '0', meaning: 'seconds on the new side before a crossing counts (0–86400)' },
    ],
    constraints: ['geoids must name at least one geozone'],
    example: {},
  },
  2: {
    name: 'speeding',
    events: 'speeding',
    settings: [
      { key: 'limit', default: '90', meaning: 'speed limit, km/h (1–1000)' },
      { key: 'minDuration', default: '10', meaning: 'seconds above the limit before the alert; 0 alerts on the first message above it (0–86400)' },
      {
        key: 'zoneLimits',
        default: '',
        meaning: 'limits inside geozones as zoneId:limit pairs, e.g. 12:50,14:30; inside several, the lowest applies',
      },
      { key: 'endMargin', default: '5', meaning: 'km/h below the limit that count as slow again (0–100)' },
      { key: 'endDuration', default: '30', meaning: 'seconds at or below limit − endMargin that end an episode (0–3600)' },
      { key: 'maxGap', default: '300', meaning: 'seconds of silence that end an episode (1–86400)' },
    ],
    constraints: [
      'endMargin must be less than limit and every zone limit',
      'a zone has at most one limit in zoneLimits (1–1000 km/h)',
      'every zone of zoneLimits must also be listed in geoids',
    ],
    example: {},
  },
  4: fuel('drain'),
  5: fuel('fuelling'),
  6: {
    name: 'panic button',
    events: 'panic',
    settings: [{ key: 'parameter', default: 'panic', meaning: 'digital parameter of the button (1 pressed, 0 released)' }],
    constraints: [],
    example: {},
  },
  7: {
    name: 'connection loss',
    events: 'connectionLost, connectionRestored',
    settings: [
      { key: 'minutes', default: '30', meaning: 'minutes without a message before the connection counts as lost (1–43200)' },
      {
        key: 'notifyRestored',
        default: 'false',
        meaning: 'also alert when a message arrives after a reported loss (true/false); the same as the common notifyCleared, kept as an alias',
      },
    ],
    constraints: [],
    example: {},
  },
  8: {
    name: 'discrete sensor',
    events: 'sensorOn, sensorOff',
    settings: [
      { key: 'parameter', default: 'din1', meaning: 'digital parameter (1/true/on or non-zero is on; 0/false/off is off)' },
      { key: 'edge', default: 'on', meaning: 'which switch alerts: on, off or both' },
      { key: 'minDuration', default: '0', meaning: 'seconds the new value must hold before it counts (0–86400)' },
    ],
    constraints: [],
    example: {},
  },
  9: {
    name: 'analog sensor',
    events: 'sensorOutOfRange (mode outside), sensorInRange (mode inside)',
    settings: [
      { key: 'parameter', default: 'ain1', meaning: 'numeric parameter' },
      { key: 'min', default: null, meaning: 'lower bound of the range, inclusive' },
      { key: 'max', default: null, meaning: 'upper bound of the range, inclusive' },
      { key: 'mode', default: 'outside', meaning: 'alert when the value is outside or inside the range' },
      { key: 'minDuration', default: '0', meaning: 'seconds the condition must hold (0–86400)' },
      { key: 'hysteresis', default: '0', meaning: 'how far back across a bound (parameter units) the value must come to end an episode (0–1000000)' },
    ],
    constraints: [
      'min or max is required',
      'min must not exceed max',
      'with mode outside and both bounds, twice the hysteresis must be less than max − min',
    ],
    example: { max: '100' },
  },
  10: {
    name: 'address',
    events: 'addressArrival, addressDeparture',
    settings: [
      { key: 'address', default: '', meaning: 'the address as people write it (at most 500 characters); shown in notifications' },
      {
        key: 'latitude',
        default: null,
        meaning: 'latitude of the point (−90–90); found from address by the geocoder when left out, where the installation has one',
      },
      { key: 'longitude', default: null, meaning: 'longitude of the point (−180–180); found with latitude' },
      { key: 'radius', default: '100', meaning: 'metres around the point that count as at the address (10–100000)' },
      { key: 'mode', default: 'both', meaning: 'which alerts: entry (arrival), exit (departure) or both' },
      { key: 'margin', default: '20', meaning: 'hysteresis in metres around the circle against GPS jitter (0–10000)' },
    ],
    constraints: [
      'latitude and longitude go together',
      'address or the coordinates are required; without coordinates, an installation without a geocoder answers 400 asking for them',
      'margin must be smaller than radius',
    ],
    example: { address: 'Nizami 10, Baku', latitude: '40.3777', longitude: '49.8467' },
  },
  11: {
    name: 'idle',
    events: 'idle',
    settings: [
      { key: 'ignition', default: 'ignition', meaning: 'digital parameter of the ignition' },
      { key: 'maxSpeed', default: '5', meaning: 'km/h below which the vehicle stands (above 0, at most 200)' },
      { key: 'minutes', default: '10', meaning: 'minutes of standing with the ignition on before the alert (1–10080)' },
      { key: 'maxGap', default: '1800', meaning: 'seconds of silence that end the episode (60–86400)' },
    ],
    constraints: [],
    example: {},
  },
  12: {
    name: 'maintenance',
    events: 'maintenanceDue',
    settings: [
      { key: 'counter', default: 'mileage', meaning: 'what is counted: mileage (km) or engineHours (h)' },
      { key: 'parameter', default: null, meaning: 'counter parameter; when left out, mileage or engineHours after counter' },
      { key: 'interval', default: null, meaning: 'service interval; when left out, 10000 km or 250 h after counter (1–1000000000)' },
      { key: 'base', default: '0', meaning: 'counter value the intervals are counted from, the last service (0–1000000000)' },
    ],
    constraints: [],
    example: {},
  },
  13: {
    name: 'parking',
    events: 'parking, parkingEnded (notifyEnd)',
    settings: [
      { key: 'minutes', default: '30', meaning: 'minutes standing at one place before the alert (1–10080)' },
      { key: 'maxSpeed', default: '5', meaning: 'km/h at or below which a fix begins a stop (0–200)' },
      {
        key: 'radius',
        default: '50',
        meaning:
          'metres from the stop point within which the vehicle still stands there, whatever speed GPS drift reports; two fixes in a row beyond it end the stop (10–10000)',
      },
      { key: 'ignition', default: 'any', meaning: 'which stops count: with the ignition off, on, or any; a reading otherwise ends the stop' },
      { key: 'parameter', default: 'ignition', meaning: 'digital parameter of the ignition' },
      { key: 'notifyEnd', default: 'false', meaning: 'also alert when a reported stop ends (true/false)' },
    ],
    constraints: [],
    example: {},
  },
  14: {
    name: 'movement',
    events: 'movement',
    settings: [
      { key: 'distance', default: '200', meaning: 'metres from where the vehicle stood beyond which it has moved (10–100000)' },
      { key: 'minStop', default: '10', meaning: 'minutes the vehicle must have stood before moving counts (1–10080)' },
      { key: 'maxSpeed', default: '5', meaning: 'km/h at or below which a fix begins a stop (0–200)' },
      {
        key: 'ignitionOff',
        default: 'false',
        meaning:
          'only movement with the ignition off counts (towing, theft): a stop begins with the ignition off and a reading on ends it (true/false)',
      },
      { key: 'parameter', default: 'ignition', meaning: 'digital parameter of the ignition' },
      { key: 'confirmFixes', default: '1', meaning: 'fixes in a row beyond distance that make a movement; 2 or more ignore a lone stray fix (1–10)' },
    ],
    constraints: [],
    example: {},
  },
  15: {
    name: 'continuous driving',
    events: 'drivingLimitNear (with warnBefore), drivingLimit',
    settings: [
      { key: 'maxSpeed', default: '5', meaning: 'km/h above which the vehicle is driving (0–200)' },
      { key: 'hours', default: '4.5', meaning: 'hours of driving allowed without a full rest (0.01–24)' },
      { key: 'restMinutes', default: '45', meaning: 'minutes a rest must last in one piece to start the count afresh (1–1440)' },
      { key: 'warnBefore', default: null, meaning: 'minutes before the limit at which to warn (0.1–1440); left out, no warning' },
      {
        key: 'minDriving',
        default: '60',
        meaning: 'seconds of driving needed to interrupt a rest; shorter movement (GPS noise, shunting) counts as part of the rest (0–3600)',
      },
      {
        key: 'maxGap',
        default: '300',
        meaning: 'seconds of a silence counted as what the vehicle was doing before it; the rest of a longer silence counts as a rest (10–86400)',
      },
    ],
    constraints: ['warnBefore must be less than hours × 60'],
    example: {},
  },
  16: {
    name: 'device alarm',
    events: 'deviceAlarm',
    settings: [
      {
        key: 'alarms',
        default: 'crash,powerCut,tamper,jamming,lowBattery,harshBraking,harshAcceleration,harshCornering',
        meaning: 'which alarms alert, separated by commas (any of the default list, any case)',
      },
      { key: 'powerParameter', default: 'io252', meaning: 'digital parameter, on while the terminal is cut off from external power (powerCut)' },
      { key: 'voltageParameter', default: 'io66', meaning: 'external voltage parameter; a reading below minVoltage is a power cut too' },
      {
        key: 'minVoltage',
        default: '6000',
        meaning: "external voltage below which power counts as cut, in the parameter's unit (mV for io66; 0–1000000)",
      },
      { key: 'batteryParameter', default: 'io67', meaning: 'backup battery voltage parameter (lowBattery)' },
      { key: 'minBattery', default: '3500', meaning: "battery voltage below which it is low, in the parameter's unit (mV for io67; 0–1000000)" },
      {
        key: 'tamperParameter',
        default: 'tamper',
        meaning: 'digital parameter, on while the case is open or the terminal is tampered with (tamper)',
      },
      { key: 'jammingParameter', default: 'io249', meaning: 'digital parameter, on while jamming is detected (jamming)' },
      { key: 'harshParameter', default: 'io253', meaning: 'harsh driving type parameter (harshAcceleration, harshBraking, harshCornering)' },
      {
        key: 'harshCodes',
        default: '1,2,3',
        meaning: 'values of harshParameter meaning harsh acceleration, braking and cornering, in that order (three different whole numbers)',
        example: '1,2,3',
      },
      { key: 'crashParameter', default: 'io247', meaning: 'parameter that is non-zero on a crash (crash)' },
      {
        key: 'repeatWindow',
        default: '60',
        meaning: 'seconds within which readings of one alarm belong to the same event: a resent record or a crash trace alerts once (0–86400)',
      },
    ],
    constraints: [],
    example: {},
  },
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

const shownDefault = (value: string | null) => (value === null ? '—' : value === '' ? 'empty' : `\`${value}\``);
const row = (setting: SettingReference) => `| \`${setting.key}\` | ${shownDefault(setting.default)} | ${setting.meaning} |`;

const TABLE_HEAD = '| key | default | meaning |\n|---|---|---|';

/** The severity of a type's alerts when its rule leaves `settings.severity` out, in words. */
export function typeSeverityMarkdown(type: RuleType): string {
  const lead = 'Severity when `settings.severity` is left out:';
  if (type !== RULE_TYPES.deviceAlarm) return `${lead} \`${TYPE_SEVERITY[type]}\`.`;
  const byLevel = [...SEVERITIES]
    .reverse()
    .map((level) => [level, Object.keys(ALARM_SEVERITY).filter((alarm) => ALARM_SEVERITY[alarm as keyof typeof ALARM_SEVERITY] === level)] as const)
    .filter(([, alarms]) => alarms.length > 0)
    .map(([level, alarms]) => `\`${level}\` for ${alarms.join(', ')}`);
  return `${lead} by the alarm, the most severe of those an alert names: ${byLevel.join('; ')}; otherwise (an alert that names none) \`${TYPE_SEVERITY[type]}\`.`;
}

/** Each type's default severity as a Markdown table. */
export function severityMarkdown(): string {
  const rows = Object.entries(SETTINGS_REFERENCE).map(([type, reference]) => {
    const ruleType = Number(type) as RuleType;
    const severity = ruleType === RULE_TYPES.deviceAlarm ? 'by the alarm (below)' : `\`${TYPE_SEVERITY[ruleType]}\``;
    return `| ${type} | ${reference.name} | ${severity} |`;
  });
  return [
    '| type | name | severity when left out |',
    '|---|---|---|',
    ...rows,
    '',
    typeSeverityMarkdown(RULE_TYPES.deviceAlarm).replace('Severity', 'Device alarm (16) severity'),
  ].join('\n');
}

/** One type's settings as a Markdown table, followed by the rules between them and its default severity. */
export function typeSettingsMarkdown(type: RuleType): string {
  const reference = SETTINGS_REFERENCE[type];
  const constraints = reference.constraints.length > 0 ? `\n\nAlso: ${reference.constraints.join('; ')}.` : '';
  return `${TABLE_HEAD}\n${reference.settings.map(row).join('\n')}${constraints}\n\n${typeSeverityMarkdown(type)}`;
}

/** The keys every type takes, as a Markdown table. */
export function commonSettingsMarkdown(): string {
  return `${TABLE_HEAD}\n${COMMON_SETTINGS_REFERENCE.map(row).join('\n')}`;
}

/** The settings reference as Markdown, one section per type, for the OpenAPI document. */
export function settingsReferenceMarkdown(): string {
  return `${Object.entries(SETTINGS_REFERENCE)
    .map(
      ([type, reference]) => `**type ${type}: ${reference.name}** (events ${reference.events})\n\n${typeSettingsMarkdown(Number(type) as RuleType)}`,
    )
    .join('\n\n')}\n\n**every type** also takes\n\n${commonSettingsMarkdown()}`;
}
