/**
 * Every event kind an evaluator raises. Notification templates are keyed by these names,
 * so a kind is never renamed once released.
 */
export const EVENT_KINDS = [
  'zoneEntry',
  'zoneExit',
  'speeding',
  'drain',
  'fuelling',
  'panic',
  'connectionLost',
  'connectionRestored',
  'sensorOn',
  'sensorOff',
  'sensorOutOfRange',
  'sensorInRange',
  'idle',
  'maintenanceDue',
  'addressArrival',
  'addressDeparture',
  'parking',
  'parkingEnded',
  'movement',
  'drivingLimitNear',
  'drivingLimit',
  'deviceAlarm',
  // raised by the noise budget of any rule (shared/pipeline/noise-budget.ts), not by an evaluator
  'limitReached',
  'reminder',
  'cleared',
  // raised by the sweep for a stored alert still open after its rule's escalateAfter
  'escalated',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/**
 * Kinds that follow up an alert rather than raise a matter of their own: never escalated (the alert they follow
 * is, when still open).
 */
export const FOLLOW_UP_KINDS: readonly EventKind[] = ['limitReached', 'reminder', 'cleared', 'escalated'];

/** The kind of an escalation: the alert it escalates, sent again to the rule's escalation targets. */
export const ESCALATED_KIND = 'escalated' satisfies EventKind;

export function isEventKind(kind: string): kind is EventKind {
  return (EVENT_KINDS as readonly string[]).includes(kind);
}
