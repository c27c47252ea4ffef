/**
 * The demo's names, addresses and figures, apart from the seeding code so that the start-up banner can use them
 * without loading the stores.
 */
export const DEMO = {
  clientName: 'Demo Logistics',
  login: 'demo',
  /** Local demo only; printed on start-up. */
  password: 'demo',
  email: 'demo@fleetwatch.local',
  opsEmail: 'ops@fleetwatch.local',
  /** The speeding rule's first escalation level: this mailbox, when nobody acknowledged within `escalateAfterMinutes`. */
  dutyEmail: 'duty@fleetwatch.local',
  escalateAfterMinutes: 1,
  /** Its second level: whoever of the duty rota is on call, `rotaAfterMinutes` after the alert. */
  rotaAfterMinutes: 2,
  rotaName: 'Duty dispatchers',
  /** The rota's second participant, a user without a password of its own to share (it never logs in in the demo). */
  dispatcherLogin: 'dispatcher',
  dispatcherEmail: 'dispatcher@fleetwatch.local',
  geozoneName: 'Depot yard',
  speedLimitKmh: 90,
  /** Marks the demo client's webhook endpoint, which points at the local demo receiver. */
  webhookDescription: 'Demo receiver (npm start)',
} as const;

/** The history query of the printed acknowledge command: the newest open alert (the history is newest first). */
export const OPEN_ALERTS_QUERY = { from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z', state: 'open', limit: 1 } as const;
