import { sesClient } from '../aws/ses';
import { snsClient } from '../aws/sns';
import { describeError, type SendOutcome } from '../channels/outcome';
import { logger } from '../observability/logger';
import { MetricName, MetricUnit, metrics } from '../observability/metrics';
import type { CircuitHealth } from '../schemas/circuit-health';
import {
  claimProbe,
  destinationHealth,
  destinationOfOwner,
  openCircuit,
  recordFailure,
  recordSuccess,
  takeProbe,
  type HealthOwner,
} from '../store/circuit-store';
import { listHeldAlert } from '../store/held-targets';
import { countsAsFailure, decideCircuit, heldReason, opensNow, probeSlotFreeBefore, successChangesHealth } from './circuit-breaker';
import type { DeliveryTarget, SmsTarget } from './targets';

/** The targets behind a breaker: SMS has none (each text is claimed, capped and never probed). */
export type GatedTarget = Exclude<DeliveryTarget, SmsTarget>;

/** One destination's circuit as one attempt sees it: its name for logs (never a URL, address or token), where its health lives, and the health. */
interface Circuit {
  destination: string;
  owner: HealthOwner;
  health: CircuitHealth;
}

/** The alert an attempt belongs to, as the gate needs it: which, when raised, and the destination holding the target, if one did. */
export interface GatedAlert {
  alertId: string;
  createdAt: string;
  heldBy: string | undefined;
  /** When the target is given up if it is still held (epoch ms). */
  deadline: number;
}

/**
 * - sent: the send was made, with its outcome: the circuit was closed, or this attempt was its probe (`probed`,
 *   the destination then);
 * - held: the circuit is open and this attempt is not its probe: nothing was sent, and the alert is on the
 *   destination's held list.
 */
export type GateResult = { kind: 'sent'; outcome: SendOutcome; probed: string | null } | { kind: 'held'; destination: string; reason: string };

let sesRegion: Promise<string> | undefined;

/** SNS delivers to a device through the region its endpoint lives in, which its ARN names. */
async function snsRegion(endpointArn: string): Promise<string> {
  return endpointArn.split(':')[3] || (await (await snsClient()).config.region());
}

async function destinationOf(target: GatedTarget): Promise<string> {
  switch (target.channel) {
    case 'webhook':
      return destinationOfOwner({ kind: 'webhook', clientId: target.endpoint.parentId, endpointId: target.endpoint.id });
    case 'telegram':
      return 'telegram';
    case 'email':
      sesRegion ??= sesClient().then((client) => client.config.region());
      return `ses#${await sesRegion}`;
    case 'push':
      return `sns#${await snsRegion(target.device.endpointArn)}`;
  }
}

/** A webhook endpoint's health came with the endpoint; a shared destination's is read (through the cache). */
async function circuitOf(target: GatedTarget, now: number): Promise<Circuit> {
  const destination = await destinationOf(target);
  if (target.channel === 'webhook') {
    const { endpoint } = target;
    return { destination, owner: { kind: 'webhook', clientId: endpoint.parentId, endpointId: endpoint.id }, health: endpoint.health };
  }
  return { destination, owner: { kind: 'destination', key: destination }, health: await destinationHealth(destination, now) };
}

/**
 * Sends to one target through its destination's circuit breaker. A closed circuit sends. An open one sends only
 * its probe: the one the sweep claimed for this alert (a target it held before), or, once the interval since the
 * last probe has passed, the first attempt to claim the slot. Any other attempt is held: nothing is sent, and the
 * alert goes on the destination's held list, from which the sweep drains it once the circuit closes. The outcome
 * of a send is recorded on the destination's health. The breaker's own reads and writes never fail the attempt:
 * if its health cannot be read, the target is sent as if the circuit were closed, and a send that went out stays
 * sent.
 */
export async function throughCircuit(target: GatedTarget, alert: GatedAlert, now: number, send: () => Promise<SendOutcome>): Promise<GateResult> {
  let circuit: Circuit;
  try {
    circuit = await circuitOf(target, now);
  } catch (error) {
    logger.warn('circuit breaker: health not read; sending as if closed', { channel: target.channel, error: describeError(error) });
    return { kind: 'sent', outcome: await send(), probed: null };
  }
  const { destination } = circuit;
  const decision = decideCircuit(circuit.health, now);
  let probe = false;
  if (decision !== 'send') {
    const carries = alert.heldBy === destination || circuit.health.probeBy === alert.alertId;
    probe = (carries && (await takeSweepProbe(circuit, alert.alertId))) || (decision === 'probe' && (await claimSlot(circuit, now)));
    if (!probe) {
      await listHeld(destination, alert);
      return { kind: 'held', destination, reason: heldReason(destination, circuit.health) };
    }
  }
  const outcome = await send();
  await record(circuit, outcome, now).catch((error: unknown) => {
    logger.warn('circuit breaker: outcome not recorded', { destination, error: describeError(error) });
  });
  // a held target whose probe failed is held again (deliverAlert): it stays on the held list
  if (probe && alert.heldBy !== undefined && countsAsFailure(outcome)) await listHeld(destination, alert);
  return { kind: 'sent', outcome, probed: probe ? destination : null };
}

async function listHeld(destination: string, alert: GatedAlert): Promise<void> {
  await listHeldAlert(destination, alert, alert.deadline).catch((error: unknown) => {
    // it still waits on its alert, which looks at it again later (HOLD_RECHECK_MS)
    logger.warn('circuit breaker: held alert not listed for the drain', { destination, alertId: alert.alertId, error: describeError(error) });
  });
}

async function takeSweepProbe(circuit: Circuit, alertId: string): Promise<boolean> {
  try {
    const taken = await takeProbe(circuit.owner, alertId);
    if (taken) logger.info('circuit breaker: probing an open circuit with its oldest held alert', { destination: circuit.destination, alertId });
    return taken;
  } catch (error) {
    logger.warn('circuit breaker: probe not taken; holding', { destination: circuit.destination, error: describeError(error) });
    return false;
  }
}

async function claimSlot(circuit: Circuit, now: number): Promise<boolean> {
  try {
    const claimed = await claimProbe(circuit.owner, now, probeSlotFreeBefore(now));
    if (claimed) logger.info('circuit breaker: probing an open circuit', { destination: circuit.destination, openSince: circuit.health.openSince });
    return claimed;
  } catch (error) {
    logger.warn('circuit breaker: probe slot not claimed; holding', { destination: circuit.destination, error: describeError(error) });
    return false;
  }
}

async function record({ destination, owner, health }: Circuit, outcome: SendOutcome, now: number): Promise<void> {
  if (countsAsFailure(outcome)) {
    const after = await recordFailure(owner, outcome.error, now);
    if (after && opensNow(after) && (await openCircuit(owner, now))) {
      metrics.addMetric(MetricName.CircuitsOpened, MetricUnit.Count, 1);
      logger.error('circuit opened: deliveries to the destination are held, one probe a minute', {
        destination,
        consecutiveFailures: after.consecutiveFailures,
        lastError: outcome.error,
      });
    }
    return;
  }
  if (outcome.status !== 'sent' || !successChangesHealth(health, now)) return;
  const { closedOpenSince } = await recordSuccess(owner, now);
  if (closedOpenSince !== null) {
    metrics.addMetric(MetricName.CircuitsClosed, MetricUnit.Count, 1);
    logger.info('circuit closed: the destination answered again; the sweep drains what it held', { destination, openSince: closedOpenSince });
  }
}
