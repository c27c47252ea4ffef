import { linkRedirectPage } from './link-redirect';
import { alertIdFor } from '../store/alert-id';
import { EXAMPLE_CHILD_ID, EXAMPLE_CLIENT_ID, EXAMPLE_ROTA_ID, EXAMPLE_SILENCE_ID, EXAMPLE_USER_ID } from './example-ids';

/**
 * Request and answer examples of the OpenAPI document, one consistent story: the client Acme Logistics, its
 * dispatcher, Truck 17 (vehicle 40117) and the Depot North geozone (12). A test validates each against the
 * schema of the route that shows it.
 */

const AT = '2026-11-25T08:00:00.000Z';

export const loginExample = { login: 'dispatcher', password: 'correct horse battery staple' };
export const loginAnswerExample = { AuthId: 'q4Vn3b9K2xPzL8dT0wYcR5mJ7hUeF1sA6gNiO2kBvQ', User: 'dispatcher' };

export const parentIdExample = { parentId: EXAMPLE_CLIENT_ID };

/** A two-level chain: whoever is on call after 10 minutes, the duty manager after 30, woken by SMS too. */
const EXAMPLE_ESCALATION = [
  { after: 10, rotaIds: [EXAMPLE_ROTA_ID] },
  { after: 30, userIds: [EXAMPLE_USER_ID], telegrams: ['-1001234567890'], sms: true },
];

const ruleBody = {
  type: 2,
  userId: null,
  parentId: EXAMPLE_CLIENT_ID,
  name: 'Depot speeding',
  active: true,
  vehicleIds: [40117],
  geoids: [12],
  fieldids: [],
  settings: {
    limit: '80',
    minDuration: '10',
    zoneLimits: '12:30',
    schedule: 'Mon-Fri 06:00-22:00',
    maxEventAge: '600',
    severity: 'critical',
    escalation: JSON.stringify(EXAMPLE_ESCALATION),
    escalationRepeat: '1',
  },
  toEmail: true,
  recipientIds: [EXAMPLE_USER_ID],
  enableSideEmails: false,
  sideEmails: [],
  toTelegram: true,
  telegrams: [{ id: '-1001234567890', info: 'dispatch group, alerts topic', threadId: 42 }],
  telegramLocation: true,
  toMobile: false,
  toClient: true,
  stored: true,
  kind: null,
  activationMode: 0,
  activationTime: null,
  timezone: 'Europe/Berlin',
  validity: 90,
  autoProlongation: true,
};

export const ruleCreateExample = {
  ...ruleBody,
  settings: {
    limit: 80,
    minDuration: 10,
    zoneLimits: '12:30',
    schedule: 'Mon-Fri 06:00-22:00',
    maxEventAge: 600,
    severity: 'critical',
    escalation: EXAMPLE_ESCALATION,
    escalationRepeat: 1,
  },
};
export const ruleRecordExample = { ...ruleBody, id: 7, parentName: 'Acme Logistics', version: 1, expiresAt: '2027-02-23T08:00:00.000Z' };
/** A rule as GET answers it, with a recipient Telegram does not reach yet and what keeps two of its side addresses from getting alerts. */
export const ruleReadExample = {
  ...ruleRecordExample,
  enableSideEmails: true,
  sideEmails: ['night-shift@partner.example', 'dispatch@partner.example'],
  problems: [
    {
      path: 'recipientIds.0',
      message: `user ${EXAMPLE_USER_ID} has no linked Telegram chat yet (or stopped it): toTelegram reaches them once they link one (POST /api/v3/telegram/link)`,
    },
    {
      path: 'sideEmails.0',
      message: "night-shift@partner.example: confirmation waits for the client's daily budget, resumes 2026-11-25T00:00:00.000Z",
    },
    {
      path: 'sideEmails.1',
      message:
        'dispatch@partner.example unsubscribed from every rule of this client; only the address itself can subscribe again, from its unsubscribe link',
    },
  ],
};
export const ruleReplaceExample = { ...ruleBody, id: 7, parentName: 'Acme Logistics', version: 1, settings: { ...ruleBody.settings, limit: '70' } };
export const ruleSummariesExample = [
  { id: 7, name: 'Depot speeding', active: true, type: 2, userId: null, parentId: EXAMPLE_CLIENT_ID, parentName: 'Acme Logistics' },
  {
    id: 9,
    name: 'North gate',
    active: true,
    type: 0,
    userId: EXAMPLE_USER_ID,
    parentId: EXAMPLE_CHILD_ID,
    parentName: 'Acme North depot',
    problems: [{ path: 'geoids.0', message: 'geozone 15 does not exist any more' }],
  },
];

export const prolongationExample = { ids: [7, 9], days: 30 };
export const prolongationAnswerExample = [
  { id: 7, expiresAt: '2027-03-25T08:00:00.000Z', clamped: false },
  { id: 9, expiresAt: '2027-02-23T08:00:00.000Z', clamped: true },
];

export const historyExample = {
  parentId: EXAMPLE_CLIENT_ID,
  vehicleId: 40117,
  from: '2026-11-24T00:00:00Z',
  to: '2026-11-25T00:00:00Z',
  severity: ['warning', 'critical'],
  limit: 50,
};
export const historyAnswerExample = {
  items: [
    {
      alertId: alertIdFor(7, 40117, 'speeding', '2026-11-24T09:14:05.000Z'),
      ruleId: 7,
      ruleType: 2,
      ruleName: 'Depot speeding',
      vehicleId: 40117,
      parentId: EXAMPLE_CLIENT_ID,
      event: {
        kind: 'speeding',
        time: '2026-11-24T09:14:05.000Z',
        latitude: 52.5208,
        longitude: 13.4094,
        speed: 47,
        values: { limit: 30, maxSpeed: 52, since: '2026-11-24T09:13:51.000Z', durationSeconds: 14, zoneId: 12, zoneName: 'Depot North' },
      },
      createdAt: '2026-11-24T09:14:06.210Z',
      status: 'delivered',
      deliveries: {
        'email:dispatch@acme.example.com': { status: 'sent', at: '2026-11-24T09:14:07.020Z', attempts: 1 },
        'telegram:-1001234567890': { status: 'sent', at: '2026-11-24T09:14:07.180Z', attempts: 1 },
      },
      stored: true,
      severity: 'critical',
      state: 'acknowledged',
      acknowledgement: { state: 'acknowledged', at: '2026-11-24T09:20:31.000Z', by: 'dispatcher', via: 'telegram' },
      lifecycle: [{ state: 'acknowledged', at: '2026-11-24T09:20:31.000Z', by: 'dispatcher', via: 'telegram' }],
      autoCloseAt: '2026-11-25T09:14:06.210Z',
    },
  ],
  nextToken: null,
};

const EXAMPLE_ALERT_ID = alertIdFor(7, 40117, 'speeding', '2026-11-24T09:14:05.000Z');
const EXAMPLE_ACKNOWLEDGEMENT = {
  state: 'acknowledged',
  at: '2026-11-24T09:20:31.000Z',
  by: 'dispatcher',
  via: 'api',
  comment: 'Calling the driver',
} as const;

export const acknowledgeExample = { comment: 'Calling the driver' };
export const acknowledgeAnswerExample = {
  alertId: EXAMPLE_ALERT_ID,
  outcome: 'acknowledged',
  state: 'acknowledged',
  acknowledgement: EXAMPLE_ACKNOWLEDGEMENT,
};
export const closeAnswerExample = { alertId: EXAMPLE_ALERT_ID, outcome: 'closed', state: 'closed', acknowledgement: EXAMPLE_ACKNOWLEDGEMENT };
export const bulkAcknowledgeExample = {
  ids: [EXAMPLE_ALERT_ID, alertIdFor(7, 40118, 'speeding', '2026-11-24T09:15:12.000Z')],
  comment: 'Calling the drivers',
};
export const bulkAcknowledgeAnswerExample = {
  results: [
    {
      alertId: EXAMPLE_ALERT_ID,
      outcome: 'alreadyAcknowledged',
      state: 'acknowledged',
      acknowledgement: { ...EXAMPLE_ACKNOWLEDGEMENT, via: 'telegram' },
    },
    { alertId: alertIdFor(7, 40118, 'speeding', '2026-11-24T09:15:12.000Z'), outcome: 'notFound' },
  ],
};

const ring = [
  [13.405, 52.52],
  [13.41, 52.52],
  [13.41, 52.523],
  [13.405, 52.523],
  [13.405, 52.52],
];
const zoneBody = {
  name: 'Depot North',
  type: 'polygon',
  parentId: EXAMPLE_CLIENT_ID,
  radius: null,
  description: 'yard and gates',
  geometry: { type: 'Polygon', coordinates: [ring] },
};
const zoneComputed = { area: 113_270.4, perimetr: 1_346.2, createDate: AT };
export const geozoneCreateExample = zoneBody;
export const geozoneRecordExample = { id: 12, ...zoneBody, ...zoneComputed, version: 1 };
export const geozoneReplaceExample = { ...geozoneRecordExample, description: 'yard, gates and fuel station' };
export const geozoneSummariesExample = [
  {
    id: 12,
    name: 'Depot North',
    type: 'polygon',
    fname: null,
    parentId: EXAMPLE_CLIENT_ID,
    radius: null,
    beginCalc: null,
    endCalc: null,
    description: 'yard and gates',
    ...zoneComputed,
  },
  {
    id: 14,
    name: 'Customer site',
    type: 'circle',
    fname: null,
    parentId: EXAMPLE_CLIENT_ID,
    radius: 150,
    beginCalc: null,
    endCalc: null,
    description: '',
    area: 70_685.8,
    perimetr: 942.5,
    createDate: AT,
  },
];

export const intersectionsExample = {
  startDate: '2026-11-24T00:00:00Z',
  endDate: '2026-11-25T00:00:00Z',
  ids: [40117],
  byTime: 300,
  byDist: 0,
  filterByTime: 60,
  filterByHalfPerimeter: false,
};
export const intersectionsAnswerExample = [
  {
    geozoneId: 12,
    geozoneName: 'Depot North',
    startDate: '2026-11-24T06:02:11.000Z',
    endDate: '2026-11-24T07:15:40.000Z',
    duration: 4409,
    vehicleId: 40117,
    vehicleName: 'Truck 17',
  },
  {
    geozoneId: 14,
    geozoneName: 'Customer site',
    startDate: '2026-11-24T16:40:02.000Z',
    endDate: null,
    duration: 26398,
    vehicleId: 40117,
    vehicleName: 'Truck 17',
  },
];

export const telegramLinkAnswerExample = {
  code: 'k3J9xQ2m',
  link: 'https://t.me/fleetwatch_bot?start=k3J9xQ2m',
  expiresAt: '2026-11-25T08:15:00.000Z',
};

export const telegramChatListExample = [
  { chatId: '184467001', username: 'dispatcher_acme', active: true, linkedAt: '2026-11-20T07:42:10.000Z' },
  { chatId: '523908114', username: '', active: false, linkedAt: AT },
];

export const pushDeviceExample = { platform: 'fcm', token: 'dQw4w9WgXcQ:APA91bH2kP0-example-registration-token' };
export const pushDeviceAnswerExample = {
  platform: 'fcm',
  endpointArn: 'arn:aws:sns:eu-central-1:123456789012:endpoint/GCM/fleetwatch/2f1c3b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b',
  registeredAt: AT,
};

export const htmlPageExample = '<!doctype html><html lang="en"><title>fleetwatch</title><p>Your address is confirmed.</p></html>';
export const successExample = 'Success';

/** The alert page, shortened: the shell (`templates/pages/layout.eta`) with the alert's facts and forms. */
export const alertPageExample =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
  '<title>[WARNING] Truck 41: speeding, 104 km/h</title><style>…</style></head><body><main>' +
  '<p><span class="severity warning">WARNING</span> <span class="muted">speeding</span></p><h1>[WARNING] Truck 41: speeding, 104 km/h</h1>' +
  "<h2>When</h2><dl><dt>In the rule's time zone</dt><dd>2026-11-25 11:02 (Europe/Berlin)</dd><dt>UTC</dt><dd>2026-11-25 10:02 (UTC)</dd></dl>" +
  '<h2>Where</h2><p><a href="https://www.openstreetmap.org/?mlat=52.52000&amp;mlon=13.40500#map=16/52.52000/13.40500">52.52000, 13.40500</a></p>' +
  '<h2>State</h2><p><b>acknowledged</b></p><ul><li>acknowledged by ops@example.com (e-mail link), 2026-11-25 11:05 (Europe/Berlin)' +
  '<blockquote>Calling the driver</blockquote></li></ul>' +
  '<h2>Notified</h2><ul><li>E-mail ops@example.com: sent, 2026-11-25 11:02 (Europe/Berlin)</li></ul>' +
  '<h2>Actions</h2><form method="post"><button type="submit" name="action" value="muteVehicle">Mute this vehicle 1 h</button></form>' +
  '</main></body></html>';

/** The pages an alert's link answers when it leads nowhere, or when what it asks is refused (shortened). */
const shortPage = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>…</style></head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`;
export const alertLinkErrorExamples = {
  403: shortPage(
    '[WARNING] Truck 41: speeding, 104 km/h',
    'Your fleetwatch user can no longer act on alerts of this client (disabled, read-only, or moved).',
  ),
  404: shortPage(
    'This link is not valid',
    'This link is not valid: it was changed, or fleetwatch did not make it. Open the alert in fleetwatch instead.',
  ),
  409: shortPage('[WARNING] Truck 41: speeding, 104 km/h', 'This alert is closed; nothing changed.'),
  410: shortPage(
    'This link has expired',
    'This link has expired: alert links work for 7 days after the alert was sent. Open the alert in fleetwatch instead.',
  ),
};

/** The short link of an alert SMS: the page of its redirect (browsers follow Location), and the page of an unknown code. */
export const shortLinkRedirectExample = linkRedirectPage('/api/v3/alerts/acknowledge/eyJwIjoiYWNrbm93bGVkZ2UifQ.c2lnbmF0dXJl');
export const shortLinkErrorExamples = {
  404: shortPage(
    'This link is not valid',
    'This link is not valid, or it has expired: SMS links work for 7 days after the alert was sent. Check that it was copied whole, or open the alert in fleetwatch instead.',
  ),
};

/** The alert page's form: the button pressed and its comment. */
export const alertPageFormExample = { action: 'acknowledge', comment: 'Calling the driver' };

export const webhookExample = {
  url: 'https://hooks.acme.example.com/fleetwatch',
  parentId: EXAMPLE_CLIENT_ID,
  description: 'dispatch board',
  events: ['zoneExit', 'connectionLost'],
};
const webhookEndpoint = {
  id: `${EXAMPLE_CLIENT_ID}.2rnROxza7R0EhXIB0u3gtA`,
  parentId: EXAMPLE_CLIENT_ID,
  url: 'https://hooks.acme.example.com/fleetwatch',
  description: 'dispatch board',
  enabled: true,
  createdAt: AT,
  disabledAt: null,
  disabledReason: null,
  signatureScheme: 'standard',
  events: ['zoneExit', 'connectionLost'],
  ruleTypes: [],
  previousSecretExpiresAt: null,
  health: { lastSuccessAt: null, lastFailureAt: null, consecutiveFailures: 0, lastError: null, openSince: null },
};
/** An endpoint whose receiver has answered 503 since the morning: its circuit is open, its alerts wait. */
export const webhookFailingExample = {
  ...webhookEndpoint,
  health: {
    lastSuccessAt: '2026-11-25T08:41:00.000Z',
    lastFailureAt: '2026-11-25T10:14:00.000Z',
    consecutiveFailures: 17,
    lastError: 'the endpoint answered 503 (a server error on its side)',
    openSince: '2026-11-25T09:03:00.000Z',
  },
};
export const webhookCreatedExample = { ...webhookEndpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
export const webhookUpdateExample = { signatureScheme: 'standard', events: ['zoneExit', 'connectionLost'], ruleTypes: [0, 7] };
export const webhookUpdatedExample = { ...webhookEndpoint, ruleTypes: [0, 7] };
export const rotateSecretExample = { overlapHours: 24 };
export const secretRotatedExample = {
  ...webhookEndpoint,
  previousSecretExpiresAt: '2026-11-26T08:00:00.000Z',
  secret: 'whsec_x2Vb7PzQ0o1cK9Jm3aRtYw8eUiL5nHgDsFqZ4vXyTbA=',
};
export const webhookListExample = [{ ...webhookEndpoint, health: { ...webhookEndpoint.health, lastSuccessAt: '2026-11-25T09:12:00.000Z' } }];
export const webhookUrlTakenExample = { error: 'Conflict', message: 'this URL is already registered for the client' };

export const openApiAnswerExample = { openapi: '3.1.0', info: { title: 'fleetwatch API', version: '3.0.0' }, paths: {} };

const previewMessage = (deviceTime: string, speed: number, serverTime = deviceTime) => ({
  vehicleId: 40117,
  deviceTime,
  serverTime,
  latitude: 52.52,
  longitude: 13.405,
  speed,
  parameters: {},
});
export const previewExample = {
  rule: {
    type: 2,
    parentId: EXAMPLE_CLIENT_ID,
    name: 'Speeding',
    vehicleIds: [40117],
    settings: { limit: 80, minDuration: 10, schedule: 'Mon-Fri 06:00-22:00' },
    enableSideEmails: true,
    sideEmails: ['dispatch@acme.example.com'],
    timezone: 'Europe/Berlin',
  },
  messages: [
    // read while out of coverage, sent with the rest when the terminal was back
    previewMessage('2026-11-25T07:20:00Z', 95, '2026-11-25T08:00:00Z'),
    previewMessage('2026-11-25T07:20:15Z', 104, '2026-11-25T08:00:00Z'),
    previewMessage('2026-11-25T08:00:00Z', 70),
    previewMessage('2026-11-25T08:00:10Z', 95),
    previewMessage('2026-11-25T08:00:25Z', 102),
    previewMessage('2026-11-25T08:00:20Z', 99, '2026-11-25T08:00:30Z'),
  ],
  until: '2026-11-25T09:00:00Z',
};
export const previewAnswerExample = {
  alerts: [
    {
      vehicleId: 40117,
      time: '2026-11-25T08:00:25.000Z',
      type: 2,
      event: 'speeding',
      text:
        'Truck 17 is speeding: 102 km/h (limit 80 km/h).\nRule: Speeding\nTime: 2026-11-25 09:00 (Europe/Berlin)\n' +
        'Position: 52.52000, 13.40500 (https://www.openstreetmap.org/?mlat=52.52000&mlon=13.40500#map=16/52.52000/13.40500)',
      severity: 'warning',
      preferences: [
        { userId: EXAMPLE_USER_ID, login: 'dispatcher', channel: 'email', reason: 'quietHours', until: '2026-11-25T13:00:00.000Z' },
        { userId: EXAMPLE_USER_ID, login: 'dispatcher', channel: 'push', reason: 'quietHours', until: '2026-11-25T13:00:00.000Z' },
      ],
    },
  ],
  suppressed: [
    { vehicleId: 40117, time: '2026-11-25T07:20:15.000Z', reason: 'tooOld', age: 2385 },
    { vehicleId: 40117, time: '2026-11-25T07:45:00.000Z', reason: 'silenced', silenceId: EXAMPLE_SILENCE_ID },
    { vehicleId: 40117, time: '2026-11-25T08:00:20.000Z', reason: 'staleMessage' },
  ],
};

/** A test alert just accepted, and the same test once the deliver function has sent it. */
export const testAcceptedExample = { testId: '9b2f6c1e-4d0a-4f8e-9a51-2c7d3e8b6f10', ruleId: 7, status: 'pending', targets: [] };
export const testResultExample = {
  testId: '9b2f6c1e-4d0a-4f8e-9a51-2c7d3e8b6f10',
  ruleId: 7,
  status: 'done',
  finishedAt: '2026-11-26T09:30:02.000Z',
  targets: [
    { channel: 'email', target: 'email:dispatcher@acme.example', outcome: 'sent' },
    { channel: 'webhook', target: 'webhook:3', outcome: 'failed', reason: 'the endpoint answered 500' },
    { channel: 'email', target: 'email:night-shift@partner.example', outcome: 'notConfirmed', reason: 'the side address has not confirmed yet' },
    {
      channel: 'telegram',
      target: 'telegram:-1001234567890',
      outcome: 'notLinked',
      reason: "the chat is not linked by a user of the rule owner's scope, or sent /stop",
    },
  ],
};
export const webhookPingExample = { status: 200, latencyMs: 182 };
export const webhookDeliveriesQueryExample = { status: 'failed' };
export const webhookDeliveriesExample = {
  items: [
    {
      alertId: '9f2c0e6b1d7a4c58a3e1b0f4d6c2a871',
      event: 'zoneExit',
      at: AT,
      status: 'failed',
      httpStatus: 503,
      latencyMs: 241,
      error: 'the endpoint answered 503',
    },
  ],
  nextToken: null,
};
export const redeliverExample = { from: '2026-11-25T00:00:00.000Z', to: '2026-11-25T12:00:00.000Z' };
export const redeliveredExample = {
  items: [{ alertId: '9f2c0e6b1d7a4c58a3e1b0f4d6c2a871', status: 'succeeded', httpStatus: 200, latencyMs: 164, error: null }],
};
export const recoverExample = { since: '2026-11-25T02:00:00.000Z' };
const recoveryJob = {
  jobId: '4c8a2f1e-7b3d-4e59-a0c6-1d9e8f2b7a34',
  webhookId: webhookEndpoint.id,
  since: '2026-11-25T02:00:00.000Z',
  startedAt: AT,
};
export const recoveryAcceptedExample = {
  ...recoveryJob,
  state: 'running',
  found: 0,
  sent: 0,
  failed: 0,
  skipped: 0,
  finishedAt: null,
  lastError: null,
};
export const recoveryDoneExample = {
  ...recoveryJob,
  state: 'done',
  found: 42,
  sent: 40,
  failed: 1,
  skipped: 1,
  finishedAt: '2026-11-25T08:00:21.000Z',
  lastError: 'alert 9f2c0e6b1d7a4c58a3e1b0f4d6c2a871: the endpoint answered 400 (it refused the request)',
};
export const recoveryRunningExample = {
  error: 'Conflict',
  message: `recovery ${recoveryJob.jobId} of this webhook is still running: follow it with GET /api/v3/webhooks/{id}/recover/${recoveryJob.jobId}`,
};
export const recoveryDisabledExample = {
  error: 'Conflict',
  message: 'the webhook is disabled: enable it with PUT /api/v3/webhooks/{id} {"enabled": true} first, then recover',
};
