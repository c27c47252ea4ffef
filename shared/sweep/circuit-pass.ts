import {
  DISABLE_WEBHOOK_AFTER_MS,
  disableCutoff,
  decideCircuit,
  DRAIN_PER_RUN,
  FAILURES_TO_OPEN,
  isOpen,
  probeSlotFreeBefore,
} from '../delivery/circuit-breaker';
import { logger } from '../observability/logger';
import { countIfAny, MetricName } from '../observability/metrics';
import type { CircuitHealth } from '../schemas/circuit-health';
import { claimProbeFor, readCircuit } from '../store/circuit-store';
import { countOpenCircuits, disableFailingWebhook, failingWebhooksOpenBefore } from '../store/failing-webhooks';
import { forgetHeldList, heldLists, oldestHeld, unlistHeldAlert, type HeldEntry, type HeldList } from '../store/held-targets';
import { dueWebhookNotices, postponeWebhookNotice } from '../store/webhook-notices';
import { enqueueDeliveries, enqueueWebhookNotices } from '../queues/enqueue-deliveries';

/** A notice handed to deliver is handed out again this much later, until every recipient has it. */
export const NOTICE_RETRY_MS = 15 * 60_000;

const DAYS = Math.round(DISABLE_WEBHOOK_AFTER_MS / 86_400_000);

/** The `disabledReason` of an endpoint disabled after days of failure: why, and since when. */
export function failingForDaysReason(openSince: string): string {
  return `no delivery succeeded for ${DAYS} days: its circuit opened at ${openSince} after ${FAILURES_TO_OPEN} failures in a row`;
}

/** Destinations whose held lists one run looks at; more wait for the next run. */
const HELD_LISTS_PER_RUN = 100;

export interface CircuitPassReport {
  /** Endpoints disabled in this run. */
  disabled: string[];
  /** Notices of disabled endpoints handed to deliver. */
  noticesEnqueued: number;
  /** Held alerts woken to carry the probe of their destination's open circuit. */
  probes: string[];
  /** Held alerts handed back to deliver because their destination's circuit closed (or its endpoint was disabled). */
  drained: string[];
}

/**
 * The circuit breakers' pass:
 * - held lists: for each destination with alerts held by its circuit, while the circuit is open, the oldest held
 *   alert is handed to deliver to carry the interval's probe (the slot claimed here, for that alert); once it has
 *   closed, or its webhook endpoint is disabled or gone, up to DRAIN_PER_RUN held alerts are handed back, oldest
 *   first, and taken off the list, which is forgotten once empty;
 * - endpoints whose circuit has been open for DISABLE_WEBHOOK_AFTER_MS are disabled (one key-condition Query of
 *   the open list, never a scan), each with one notice to its client's users;
 * - due notices go to the deliveries queue (each first made due again NOTICE_RETRY_MS later, so a lost request or
 *   an unreachable recipient is handed out again and overlapping sweeps enqueue it once);
 * - the open circuits are counted for the metrics (OpenCircuits, OpenWebhookCircuits).
 */
export async function runCircuitPass(now: number, { drainPerRun = DRAIN_PER_RUN }: { drainPerRun?: number } = {}): Promise<CircuitPassReport> {
  const { probes, drained } = await runHeldLists(now, drainPerRun);
  const disabled: string[] = [];
  for (const failing of await failingWebhooksOpenBefore(disableCutoff(now))) {
    if ((await disableFailingWebhook(failing, failingForDaysReason(failing.openSince), now)) === 'disabled') {
      disabled.push(failing.endpointId);
      logger.warn('webhook endpoint disabled after failing for days; its users get a notice', {
        endpointId: failing.endpointId,
        clientId: failing.clientId,
        openSince: failing.openSince,
      });
    }
  }
  const claimed = [];
  for (const notice of await dueWebhookNotices(now)) {
    if (await postponeWebhookNotice(notice, now + NOTICE_RETRY_MS)) claimed.push(notice);
  }
  const noticesEnqueued = await enqueueWebhookNotices(claimed);
  const open = await countOpenCircuits();
  countIfAny(MetricName.OpenCircuits, open.destinations);
  countIfAny(MetricName.OpenWebhookCircuits, open.webhooks);
  return { disabled, noticesEnqueued, probes, drained };
}

async function runHeldLists(now: number, drainPerRun: number): Promise<{ probes: string[]; drained: string[] }> {
  const probes: string[] = [];
  const draining: { list: HeldList; entries: HeldEntry[] }[] = [];
  for (const list of await heldLists(HELD_LISTS_PER_RUN)) {
    const { health, sending } = await readCircuit(list.owner);
    if (sending && isOpen(health)) {
      const carrier = await probeCarrier(list, health, now);
      if (carrier !== null) probes.push(carrier);
      continue;
    }
    const entries = await oldestHeld(list.destination, drainPerRun);
    if (entries.length === 0) await forgetHeldList(list);
    else draining.push({ list, entries });
  }
  const handBack = [...new Set([...probes, ...draining.flatMap(({ entries }) => entries.map((entry) => entry.alertId))])];
  const enqueued = await enqueueDeliveries(handBack);
  const drained: string[] = [];
  for (const { list, entries } of draining) {
    // an entry not handed back stays listed, for the next run
    const handed = entries.filter((entry) => enqueued.has(entry.alertId));
    for (const entry of handed) await unlistHeldAlert(list.destination, entry);
    drained.push(...handed.map((entry) => entry.alertId));
    logger.info('circuit closed: held alerts handed back, oldest first', { destination: list.destination, handedBack: handed.length });
  }
  return { probes: probes.filter((alertId) => enqueued.has(alertId)), drained };
}

/**
 * Claims the open circuit's probe slot for its oldest held alert, once an interval has passed since it opened or
 * was last probed. A probe claimed a run ago for that same alert and never taken means the alert cannot carry one
 * (it settled, or its request was lost): it is taken off the list, and the next oldest carries it.
 */
async function probeCarrier(list: HeldList, health: CircuitHealth, now: number): Promise<string | null> {
  if (decideCircuit(health, now) !== 'probe') return null;
  const [oldest, next] = await oldestHeld(list.destination, 2);
  let carrier = oldest;
  if (oldest && health.probeBy === oldest.alertId) {
    await unlistHeldAlert(list.destination, oldest);
    carrier = next;
  }
  if (!carrier) return null;
  return (await claimProbeFor(list.owner, carrier.alertId, now, probeSlotFreeBefore(now), FAILURES_TO_OPEN)) ? carrier.alertId : null;
}
