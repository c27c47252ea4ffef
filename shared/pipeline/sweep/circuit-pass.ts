import { DISABLE_WEBHOOK_AFTER_MS, disableCutoff, FAILURES_TO_OPEN } from '../../delivery/circuit-breaker';
import { logger } from '../../observability/logger';
import { countIfAny, MetricName } from '../../observability/metrics';
import { countOpenCircuits, disableFailingWebhook, failingWebhooksOpenBefore } from '../../store/failing-webhooks';
import { dueWebhookNotices, postponeWebhookNotice } from '../../store/webhook-notices';
import { enqueueWebhookNotices } from '../enqueue-deliveries';

/** A notice handed to deliver is handed out again this much later, until every recipient has it. */
export const NOTICE_RETRY_MS = 15 * 60_000;

const DAYS = Math.round(DISABLE_WEBHOOK_AFTER_MS / 86_400_000);

/** The `disabledReason` of an endpoint disabled after days of failure: why, and since when. */
export function failingForDaysReason(openSince: string): string {
  return `no delivery succeeded for ${DAYS} days: its circuit opened at ${openSince} after ${FAILURES_TO_OPEN} failures in a row`;
}

export interface CircuitPassReport {
  /** Endpoints disabled in this run. */
  disabled: string[];
  /** Notices of disabled endpoints handed to deliver. */
  noticesEnqueued: number;
}

/**
 * The circuit breakers' pass: endpoints whose circuit has been open for DISABLE_WEBHOOK_AFTER_MS are disabled
 * (one key-condition Query of the open list, never a scan), each with one notice to its client's users; due
 * notices go to the deliveries queue (each first made due again NOTICE_RETRY_MS later, so a lost request or an
 * unreachable recipient is handed out again and overlapping sweeps enqueue it once); and the open circuits are
 * counted for the metrics (OpenCircuits, OpenWebhookCircuits).
 */
export async function runCircuitPass(now: number): Promise<CircuitPassReport> {
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
  return { disabled, noticesEnqueued };
}
