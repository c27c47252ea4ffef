/**
 * Every key of every table, in one place: the prefixes and the functions that build keys from them. Store modules
 * build their keys here, and the stack's IAM conditions (`dynamodb:LeadingKeys`) name the prefixes from here, so a
 * key cannot change in one and not the other. Changing a key's text orphans the items written under the old one.
 *
 * directory (single-table design on pk / sk; gsi1 on gsi1pk / gsi1sk; `ttl` expires items):
 *   AGENT#<clientId>          / PROFILE                  a client (agent)
 *   AGENT#<parentId>          / CHILD#<clientId>         parent → child link, for the hierarchy walk
 *   AGENT#<clientId>          / USER#<userId>            client → user link, for listing a client's users
 *   USER#<userId>             / PROFILE                  a user; gsi1: LOGIN#<login lower-case> / USER
 *   VEHICLE#<vehicleId>       / PROFILE                  a vehicle's name and owner, for notification texts and tenancy
 *   LOGIN#<login lower-case>  / LOGIN                    the login's guard and credential: userId, scrypt passwordHash
 *   SESSION#<sha256(token)>   / SESSION                  a session, ttl = its expiry
 *   USERSESSIONS#<userId>     / COUNTER, SLOT#<n>        the user's session sequence and its 50 session slots
 *   LOGINFAIL#<login>#<ip>    / LOGINFAIL                failed logins of one login from one address
 *   IPFAIL#<ip>               / IPFAIL                   failed logins from one address over all logins
 *   RATE#<clientId>[#<bucket>]#<window> / RATE           a client's requests in one window
 *   COUNTS#<clientId>         / RULES, GEOZONES          how many rules and geozones the client owns, for its limits
 *   TGCODE#<code>             / TGCODE                   a single-use Telegram link code, ttl
 *   TGCHAT#<chatId>           / TGCHAT                   the user a linked chat belongs to
 *   SMSLINK#<code>            / SMSLINK                  an alert SMS's short link: the signed alert-link token, ttl
 *   SMSOPTOUT#<clientId>      / <number>                 a number that opted out of the client's SMS
 *   SMSSPEND#<clientId>       / <YYYY-MM>                the client's SMS spend in a month
 *   PHONECODE#<userId>        / CODE                     the phone verification code last sent to the user
 *   PHONE#<number>            / CODES#<day>              verification codes sent to one number on one UTC day
 *   SIDEMAIL#<clientId>#<mailbox> / SIDEMAIL             a side mailbox's confirmation and unsubscription
 *   SIDEMAIL#<clientId>#<mailbox> / HOLD#<alertId>       an alert held until the mailbox confirms
 *   OPTOUT#<ruleId>#<address> / OPTOUT                   a rule's List-Unsubscribe token for one address
 *   SUPPRESSED#<address>      / SUPPRESSED               an address that bounced or complained
 *   SENDER#<clientId>         / BUDGET#<day>, FEEDBACK#<day>, SMSCODES#<day>, UNCONFIRMED
 *                                                        what keeps a client from abusing the shared senders
 *   CONFIRMSTOPS              / <clientId>               a client whose confirmation e-mails are stopped
 *   CONFIRMWAIT#<day>         / <clientId>#<mailbox>     a confirmation waiting for its client's budget of that day
 *   DIGEST#<clientId>#<address> / <alertId>              an alert e-mail held for a quota digest
 *   DIGEST#Q#<userId>#<until>#<target> / <alertId>       an alert held for a quiet-hours digest
 *   DIGESTDUE#<0..7>          / <clientId>#<address>, ~<until>#<userId>#<target>   the digests, by when they are due
 *   FEEDOUTAGE                / <scope>                  an interrupted feed (`platform` or a client id)
 *   SILENCE#<clientId>        / SILENCE#<silenceId>, COUNT   a client's maintenance silences and their count
 *   ROTA#<clientId>           / ROTA#<rotaId>            a client's on-call rotas
 *   WEBHOOKS#<clientId>       / ENDPOINT#<endpointId>, URLS  a client's webhook endpoints and their URL hashes;
 *                                                        an endpoint with a bare GUID id has gsi1: WEBHOOK#<endpointId> / ENDPOINT
 *   WEBHOOKLOG#<endpointId>   / <ISO time>#<alertId>     an endpoint's delivery log
 *   WEBHOOKRECOVERY#<endpointId> / JOB#<jobId>, LATEST, JOB#<jobId>#ALERT#<alertId>   an endpoint's recovery jobs
 *   WEBHOOKNOTICE             / <endpointId>#<disabledAt>  the notice that an endpoint was disabled, while it is sent
 *   DESTINATION#<key>         / HEALTH                   a shared destination's circuit health
 *   FAILING#WEBHOOKS          / <openSince>#<endpointId> a webhook endpoint whose circuit is open
 *   FAILING#DESTINATIONS      / <key>                    a shared destination whose circuit is open
 *   HELD                      / <destination>            a destination whose circuit opened, so its held list is found
 *   HELD#<destination>        / <createdAt>#<alertId>    an alert with a target the open circuit holds
 *   NOTIFTEST#<testId>        / RESULT                   the outcome of a rule's test alert
 *   TESTRATE#<clientId>#<hour> / RATE                    a client's test alerts in one hour
 *
 * rules: `id` (item 0 holds the id counter); `byParent` on parentId / id; `byExpiry` on `expiry#<0..n>` / expiresAt
 *   (rules-store.ts).
 * vehicleState: `vehicleId`; `bySilence` on `silence#<0..n>` / silentAt (vehicle-state-store.ts); `byOwner` on owner.
 * alerts: `alertId`; `byParentTime` and `byVehicleTime` on parentId or vehicleId / `<event time>#<alertId>`; `outbox`
 *   on `pending#<0..15>` or `held#<0..15>` / createdAt and `byDue` on `due#<0..15>` / dueAt (alerts/alerts-store.ts).
 * geozones: `id` (item 0 holds the id counter); `byParent` on parentId / id.
 * visits: `vehicleId` / `<startDate>#<zoneId>`; `byZone` on zoneId / `<startDate>#<vehicleId>`.
 */

/**
 * The partition keys of the directory table, or their prefixes. A prefix that is the start of another (`HELD` of
 * `HELD#`, `DIGEST#` of `DIGESTDUE#`) covers both in an IAM condition.
 */
export const PK = {
  agent: 'AGENT#',
  user: 'USER#',
  vehicle: 'VEHICLE#',
  login: 'LOGIN#',
  session: 'SESSION#',
  userSessions: 'USERSESSIONS#',
  loginFailures: 'LOGINFAIL#',
  ipFailures: 'IPFAIL#',
  rate: 'RATE#',
  counts: 'COUNTS#',
  telegramCode: 'TGCODE#',
  telegramChat: 'TGCHAT#',
  shortLink: 'SMSLINK#',
  smsOptOut: 'SMSOPTOUT#',
  smsSpend: 'SMSSPEND#',
  phoneCode: 'PHONECODE#',
  phone: 'PHONE#',
  sideMail: 'SIDEMAIL#',
  optOut: 'OPTOUT#',
  suppressed: 'SUPPRESSED#',
  sender: 'SENDER#',
  confirmStops: 'CONFIRMSTOPS',
  confirmWait: 'CONFIRMWAIT#',
  digest: 'DIGEST#',
  digestDue: 'DIGESTDUE#',
  feedOutage: 'FEEDOUTAGE',
  silence: 'SILENCE#',
  rota: 'ROTA#',
  webhooks: 'WEBHOOKS#',
  webhookLog: 'WEBHOOKLOG#',
  webhookRecovery: 'WEBHOOKRECOVERY#',
  webhookNotice: 'WEBHOOKNOTICE',
  destination: 'DESTINATION#',
  failing: 'FAILING#',
  heldLists: 'HELD',
  held: 'HELD#',
  testResult: 'NOTIFTEST#',
  testRate: 'TESTRATE#',
} as const;

/** The sort-key prefixes of the directory table, and the gsi1 partition-key prefixes. */
export const SK = {
  child: 'CHILD#',
  user: 'USER#',
  slot: 'SLOT#',
  codes: 'CODES#',
  smsCodes: 'SMSCODES#',
  budget: 'BUDGET#',
  feedback: 'FEEDBACK#',
  hold: 'HOLD#',
  silence: 'SILENCE#',
  rota: 'ROTA#',
  endpoint: 'ENDPOINT#',
  job: 'JOB#',
  jobAlert: '#ALERT#',
  /** gsi1pk of a user, by login. */
  loginIndex: 'LOGIN#',
  /** gsi1pk of an endpoint with a bare GUID id. */
  webhookIndex: 'WEBHOOK#',
  /** Starts a quiet-hours digest's entries partition after `DIGEST#`. */
  quietDigest: 'Q#',
} as const;

export const directoryKeys = {
  agent: (agentId: string) => ({ pk: `${PK.agent}${agentId}`, sk: 'PROFILE' }),
  childLink: (parentId: string, agentId: string) => ({ pk: `${PK.agent}${parentId}`, sk: `${SK.child}${agentId}` }),
  user: (userId: string) => ({ pk: `${PK.user}${userId}`, sk: 'PROFILE' }),
  userLink: (parentId: string, userId: string) => ({ pk: `${PK.agent}${parentId}`, sk: `${SK.user}${userId}` }),
  loginIndex: (login: string) => ({ gsi1pk: `${SK.loginIndex}${login.toLowerCase()}`, gsi1sk: 'USER' }),
  loginGuard: (login: string) => ({ pk: `${PK.login}${login.toLowerCase()}`, sk: 'LOGIN' }),
  vehicle: (vehicleId: number) => ({ pk: `${PK.vehicle}${vehicleId}`, sk: 'PROFILE' }),
  session: (tokenHash: string) => ({ pk: `${PK.session}${tokenHash}`, sk: 'SESSION' }),
  telegramCode: (code: string) => ({ pk: `${PK.telegramCode}${code}`, sk: 'TGCODE' }),
  telegramChat: (chatId: string) => ({ pk: `${PK.telegramChat}${chatId}`, sk: 'TGCHAT' }),
  count: (agentId: string, kind: 'rules' | 'geozones') => ({ pk: `${PK.counts}${agentId}`, sk: kind.toUpperCase() }),
  shortLink: (code: string) => ({ pk: `${PK.shortLink}${code}`, sk: 'SMSLINK' }),
} as const;

export const sessionKeys = {
  counter: (userId: string) => ({ pk: `${PK.userSessions}${userId}`, sk: 'COUNTER' }),
  slot: (userId: string, slot: number) => ({ pk: `${PK.userSessions}${userId}`, sk: `${SK.slot}${slot}` }),
} as const;

export const throttleKeys = {
  /** `login` is lower-cased here. */
  loginFailures: (login: string, ip: string) => ({ pk: `${PK.loginFailures}${login.toLowerCase()}#${ip}`, sk: 'LOGINFAIL' }),
  ipFailures: (ip: string) => ({ pk: `${PK.ipFailures}${ip}`, sk: 'IPFAIL' }),
  /** `counter` is the client id, or `<clientId>#<bucket>`. */
  clientRate: (counter: string, period: number) => ({ pk: `${PK.rate}${counter}#${period}`, sk: 'RATE' }),
  testRate: (clientId: string, hour: number) => ({ pk: `${PK.testRate}${clientId}#${hour}`, sk: 'RATE' }),
} as const;

export const testResultKey = (testId: string) => ({ pk: `${PK.testResult}${testId}`, sk: 'RESULT' });

export const smsKeys = {
  optOut: (clientId: string, phoneNumber: string) => ({ pk: `${PK.smsOptOut}${clientId}`, sk: phoneNumber }),
  spend: (clientId: string, month: string) => ({ pk: `${PK.smsSpend}${clientId}`, sk: month }),
  phoneCode: (userId: string) => ({ pk: `${PK.phoneCode}${userId}`, sk: 'CODE' }),
  numberCodes: (phoneNumber: string, day: number) => ({ pk: `${PK.phone}${phoneNumber}`, sk: `${SK.codes}${day}` }),
  clientCodes: (clientId: string, day: number) => ({ pk: `${PK.sender}${clientId}`, sk: `${SK.smsCodes}${day}` }),
} as const;

/** The e-mail consent records; addresses and mailboxes come lower-case (email-consent/address.ts). */
export const emailConsentKeys = {
  side: (clientId: string, mailbox: string) => ({ pk: `${PK.sideMail}${clientId}#${mailbox}`, sk: 'SIDEMAIL' }),
  hold: (clientId: string, mailbox: string, alertId: string) => ({ pk: `${PK.sideMail}${clientId}#${mailbox}`, sk: `${SK.hold}${alertId}` }),
  holdPrefix: SK.hold,
  optOut: (ruleId: number, address: string) => ({ pk: `${PK.optOut}${ruleId}#${address}`, sk: 'OPTOUT' }),
  suppressed: (address: string) => ({ pk: `${PK.suppressed}${address}`, sk: 'SUPPRESSED' }),
} as const;

export const senderKeys = {
  budget: (clientId: string, day: number) => ({ pk: `${PK.sender}${clientId}`, sk: `${SK.budget}${day}` }),
  feedback: (clientId: string, day: number) => ({ pk: `${PK.sender}${clientId}`, sk: `${SK.feedback}${day}` }),
  unconfirmed: (clientId: string) => ({ pk: `${PK.sender}${clientId}`, sk: 'UNCONFIRMED' }),
  stops: PK.confirmStops,
  waitPartition: (day: number) => `${PK.confirmWait}${day}`,
} as const;

export const digestKeys = {
  /** `recipient` is `<clientId>#<address>`. */
  quotaEntries: (recipient: string) => `${PK.digest}${recipient}`,
  /** `recipient` is `<userId>#<until>#<target>`. */
  quietEntries: (recipient: string) => `${PK.digest}${SK.quietDigest}${recipient}`,
  duePartition: (shard: number) => `${PK.digestDue}${shard}`,
} as const;

export const feedOutagePartition = PK.feedOutage;

/**
 * Maintenance silences: one partition per client, so that evaluation reads a client's silences with one Query,
 * and the functions that write them are granted that one key prefix.
 */
export const silenceKeys = {
  partition: (clientId: string) => `${PK.silence}${clientId}`,
  sortPrefix: SK.silence,
  silence: (clientId: string, silenceId: string) => ({ pk: `${PK.silence}${clientId}`, sk: `${SK.silence}${silenceId}` }),
  count: (clientId: string) => ({ pk: `${PK.silence}${clientId}`, sk: 'COUNT' }),
} as const;

/** On-call rotas: one partition per client, each rota with its overrides in one item. */
export const rotaKeys = {
  partition: (clientId: string) => `${PK.rota}${clientId}`,
  sortPrefix: SK.rota,
  rota: (clientId: string, rotaId: string) => ({ pk: `${PK.rota}${clientId}`, sk: `${SK.rota}${rotaId}` }),
} as const;

/**
 * Webhook endpoints: one partition per client, so listing a client's endpoints is one Query over at most a
 * handful of small items; `URLS` holds the set of the endpoints' URL hashes.
 */
export const webhookKeys = {
  endpoint: (clientId: string, endpointId: string) => ({ pk: `${PK.webhooks}${clientId}`, sk: `${SK.endpoint}${endpointId}` }),
  urls: (clientId: string) => ({ pk: `${PK.webhooks}${clientId}`, sk: 'URLS' }),
  partition: (clientId: string) => `${PK.webhooks}${clientId}`,
  sortPrefix: SK.endpoint,
  index: (endpointId: string) => ({ gsi1pk: `${SK.webhookIndex}${endpointId}`, gsi1sk: 'ENDPOINT' }),
  logPartition: (endpointId: string) => `${PK.webhookLog}${endpointId}`,
} as const;

export const webhookNoticeKeys = {
  partition: PK.webhookNotice,
  notice: (endpointId: string, disabledAt: string) => ({ pk: PK.webhookNotice, sk: `${endpointId}#${disabledAt}` }),
} as const;

export const webhookRecoveryKeys = {
  job: (endpointId: string, jobId: string) => ({ pk: `${PK.webhookRecovery}${endpointId}`, sk: `${SK.job}${jobId}` }),
  latest: (endpointId: string) => ({ pk: `${PK.webhookRecovery}${endpointId}`, sk: 'LATEST' }),
  alert: (endpointId: string, jobId: string, alertId: string) => ({
    pk: `${PK.webhookRecovery}${endpointId}`,
    sk: `${SK.job}${jobId}${SK.jobAlert}${alertId}`,
  }),
} as const;

export const FAILING_WEBHOOKS = `${PK.failing}WEBHOOKS`;
export const FAILING_DESTINATIONS = `${PK.failing}DESTINATIONS`;
export const HELD_LISTS = PK.heldLists;
/** The partition of one destination's held list. */
export const heldPartition = (destination: string) => `${PK.held}${destination}`;

/**
 * The breaker's items in the directory table:
 * - `DESTINATION#<key>` / `HEALTH`: the health (`health` map) of a shared destination, `telegram`, `ses#<region>`
 *   or `sns#<region>`;
 * - `FAILING#WEBHOOKS` / `<openSince>#<endpointId>`: one per webhook endpoint whose circuit is open, sorted by
 *   when it opened, so that the sweep reads those open for 5 days with one key condition and never scans;
 * - `FAILING#DESTINATIONS` / `<key>`: one per shared destination whose circuit is open.
 * - `HELD#<destination>` / `<alert createdAt>#<alertId>`: one per alert with a target an open circuit holds, oldest
 *   alert first, so that the sweep finds the oldest to carry a probe and drains them in that order once it closes;
 * - `HELD` / `<destination>`: one per destination whose circuit opened, with whose health it is (`owner`) and
 *   `openSince`, so that the sweep finds the held lists without a scan.
 * The open lists are written when a circuit opens and deleted when it closes; the sweep counts them for the
 * metrics. `HELD` / `<destination>` is written when it opens too, and forgotten by the sweep once the circuit
 * closed and its held list was drained; held entries expire anyway (`ttl`).
 */
export const circuitKeys = {
  destination: (key: string) => ({ pk: `${PK.destination}${key}`, sk: 'HEALTH' }),
  failingWebhook: (openSince: string, endpointId: string) => ({ pk: FAILING_WEBHOOKS, sk: `${openSince}#${endpointId}` }),
  failingDestination: (key: string) => ({ pk: FAILING_DESTINATIONS, sk: key }),
  held: (destination: string, createdAt: string, alertId: string) => ({ pk: heldPartition(destination), sk: `${createdAt}#${alertId}` }),
  heldList: (destination: string) => ({ pk: HELD_LISTS, sk: destination }),
} as const;
