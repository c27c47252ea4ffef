import { sesClient } from '../aws/ses';
import { snsClient } from '../aws/sns';
import { describeError, type SendOutcome } from '../channels/outcome';
import { logger } from '../observability/logger';
import { MetricName, MetricUnit, metrics } from '../observability/metrics';
import type { CircuitHealth } from '../schemas/circuit-health';
import { claimProbe, destinationHealth, openCircuit, recordFailure, recordSuccess, type HealthOwner } from '../store/circuit-store';
import { countsAsFailure, decideCircuit, heldOutcome, opensNow, probeSlotFreeBefore, successChangesHealth } from './circuit-breaker';
import type { DeliveryTarget } from './targets';

/** One destination's circuit as one attempt sees it: its name for logs (never a URL, address or token), where its health lives, and the health. */
interface Circuit {
  destination: string;
  owner: HealthOwner;
  health: CircuitHealth;
}

let sesRegion: Promise<string> | undefined;

/** SNS delivers to a device through the region its endpoint lives in, which its ARN names. */
async function snsRegion(endpointArn: string): Promise<string> {
  return endpointArn.split(':')[3] || (await snsClient().config.region());
}

async function destinationOf(target: DeliveryTarget): Promise<string> {
  switch (target.channel) {
    case 'webhook':
      return `webhook#${target.endpoint.id}`;
    case 'telegram':
      return 'telegram';
    case 'email':
      sesRegion ??= sesClient().config.region();
      return `ses#${await sesRegion}`;
    case 'push':
      return `sns#${await snsRegion(target.device.endpointArn)}`;
  }
}

/** A webhook endpoint's health came with the endpoint; a shared destination's is read (through the cache). */
async function circuitOf(target: DeliveryTarget, now: number): Promise<Circuit> {
  const destination = await destinationOf(target);
  if (target.channel === 'webhook') {
    const { endpoint } = target;
    return { destination, owner: { kind: 'webhook', clientId: endpoint.parentId, endpointId: endpoint.id }, health: endpoint.health };
  }
  return { destination, owner: { kind: 'destination', key: destination }, health: await destinationHealth(destination, now) };
}

/**
 * Sends to one target through its destination's circuit breaker: a closed circuit sends, an open one holds the
 * attempt back (a transient failure, no network call) except for the one probe an interval, and the outcome is
 * recorded on the destination's health. The breaker's own reads and writes never fail the attempt: if they
 * fail, the target is sent as if the circuit were closed, and a send that went out stays sent.
 */
export async function throughCircuit(target: DeliveryTarget, now: number, send: () => Promise<SendOutcome>): Promise<SendOutcome> {
  let circuit: Circuit;
  try {
    circuit = await circuitOf(target, now);
  } catch (error) {
    logger.warn('circuit breaker: health not read; sending as if closed', { channel: target.channel, error: describeError(error) });
    return send();
  }
  const decision = decideCircuit(circuit.health, now);
  if (decision !== 'send' && !(decision === 'probe' && (await claimSlot(circuit, now)))) return heldOutcome(circuit.destination, circuit.health);
  const outcome = await send();
  await record(circuit, outcome, now).catch((error: unknown) => {
    logger.warn('circuit breaker: outcome not recorded', { destination: circuit.destination, error: describeError(error) });
  });
  return outcome;
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
    logger.info('circuit closed: the destination answered again', { destination, openSince: closedOpenSince });
  }
}
