import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { FAILING_DESTINATIONS, FAILING_WEBHOOKS } from '../schemas/circuit-health';

/**
 * The open lists of the circuit breakers (`FAILING#WEBHOOKS`, `FAILING#DESTINATIONS`, shared/schemas/circuit-health.ts):
 * what the sweep reads to count the open circuits, and to find the endpoints that have failed for days.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
/** Endpoints disabled per sweep run at most; the rest wait a minute for the next run. */
const DISABLES_PER_RUN = 50;

const failingWebhookSchema = z.object({ clientId: z.string(), endpointId: z.string(), openSince: z.string() });
export type FailingWebhook = z.infer<typeof failingWebhookSchema>;

/** Webhook endpoints whose circuit opened before `cutoff` (ISO) and is still listed open, oldest first. */
export async function failingWebhooksOpenBefore(cutoff: string): Promise<FailingWebhook[]> {
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND sk < :cutoff',
      ExpressionAttributeValues: { ':pk': FAILING_WEBHOOKS, ':cutoff': cutoff },
      Limit: DISABLES_PER_RUN,
    }),
  );
  return Items.flatMap((item) => {
    const parsed = failingWebhookSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

async function countPartition(pk: string): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        Select: 'COUNT',
        ExclusiveStartKey: startKey,
      }),
    );
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

/** How many circuits are open now: shared destinations, and webhook endpoints. */
export async function countOpenCircuits(): Promise<{ destinations: number; webhooks: number }> {
  return { destinations: await countPartition(FAILING_DESTINATIONS), webhooks: await countPartition(FAILING_WEBHOOKS) };
}
