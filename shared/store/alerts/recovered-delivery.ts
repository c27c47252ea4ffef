import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../../aws/dynamodb';
import { resourcesConfig } from '../../config';
import { logger } from '../../observability/logger';
import { alertSchema, type Alert, type DeliveryStatus } from '../../schemas/alert';
import type { StoredWebhook } from '../../schemas/webhook';
import { batchGetItems } from '../batch-get';
import { conditionFailed } from '../dynamo';

/** An alert as a recovery reads it, with the lease of a deliver invocation working on it (epoch ms), if any. */
export interface RecoverableAlert {
  alert: Alert;
  deliveryLease: number | null;
}

const leaseSchema = z.object({ deliveryLease: z.number().optional() });

/** The alerts of the ids that still exist, by id: one BatchGetItem per 100. */
export async function readRecoverableAlerts(alertIds: readonly string[]): Promise<Map<string, RecoverableAlert>> {
  const items = await batchGetItems(
    resourcesConfig().ALERTS_TABLE,
    alertIds.map((alertId) => ({ alertId })),
    { consistentRead: true },
  );
  const alerts = new Map<string, RecoverableAlert>();
  for (const item of items) {
    const alert = alertSchema.safeParse(item);
    if (!alert.success) {
      logger.warn('alert item does not match its schema; not recovered', { alertId: String(item.alertId) });
      continue;
    }
    alerts.set(alert.data.alertId, { alert: alert.data, deliveryLease: leaseSchema.parse(item).deliveryLease ?? null });
  }
  return alerts;
}

/**
 * What a recovery does with an alert that has a failed attempt in the endpoint's log:
 * - resend: its delivery to the endpoint failed for good (`failed`), or was left open when the alert was parked
 *   after its last attempt (or finished without it);
 * - retrying: the delivery is still open on a pending alert that is not parked (a retry is scheduled), or a
 *   deliver invocation holds the alert now: left to the retry, counted as skipped;
 * - none: it went out since (`sent`), was never due (`skipped`), or the alert is not of the endpoint's client.
 */
export function recoveryVerdict({ alert, deliveryLease }: RecoverableAlert, endpoint: StoredWebhook, now: number): 'resend' | 'retrying' | 'none' {
  const key = `webhook:${endpoint.id}`;
  if (alert.parentId !== endpoint.parentId) return 'none';
  const settled = alert.deliveries[key]?.status;
  const open = settled === undefined && alert.deliveryRetries?.[key] !== undefined;
  if (settled !== 'failed' && !open) return 'none';
  const busy = deliveryLease !== null && deliveryLease >= now;
  const scheduled = open && alert.status === 'pending' && alert.parkedAt === undefined;
  return busy || scheduled ? 'retrying' : 'resend';
}

/**
 * Records the alert's delivery to the endpoint as sent, so that no later recovery (nor a redrive of a parked
 * alert) sends it again; a finished alert that had failed becomes delivered, since something went out. Nothing
 * is written when the alert moved on meanwhile (a deliver invocation took it, it finished): false then.
 */
export async function recordRecoveredDelivery(alert: Alert, endpointId: string, now: number): Promise<boolean> {
  const key = `webhook:${endpointId}`;
  const attempts = (alert.deliveries[key]?.attempts ?? alert.deliveryRetries?.[key]?.attempts ?? 0) + 1;
  const status: DeliveryStatus = { status: 'sent', at: new Date(now).toISOString(), attempts };
  const delivered = alert.status === 'failed';
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: resourcesConfig().ALERTS_TABLE,
        Key: { alertId: alert.alertId },
        UpdateExpression: `SET deliveries.#key = :sent${delivered ? ', #status = :delivered' : ''}`,
        ConditionExpression: '#status = :seen AND (attribute_not_exists(deliveryLease) OR deliveryLease < :now)',
        ExpressionAttributeNames: { '#key': key, '#status': 'status' },
        ExpressionAttributeValues: { ':sent': status, ':seen': alert.status, ':now': now, ...(delivered ? { ':delivered': 'delivered' } : {}) },
      }),
    );
    return true;
  } catch (error) {
    if (!conditionFailed(error)) throw error;
    logger.warn('recovered alert moved on meanwhile; its delivery record is left as it is', { alertId: alert.alertId, endpointId });
    return false;
  }
}
