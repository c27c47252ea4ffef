import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import { conditionFailed } from './dynamo';
import { circuitKeys, HELD_LISTS, heldPartition } from './keys';

/**
 * The held lists of the circuit breakers (keys in keys.ts): per destination, the alerts
 * with a target its open circuit holds, oldest alert first, and one `HELD` entry per destination whose circuit
 * opened (written with the opening, shared/store/circuit-store.ts `openCircuit`). The deliver function adds an
 * alert when it holds a target; the sweep reads them to wake the oldest held alert as the probe, and drains them
 * once the circuit closed.
 *
 * What it costs: a hold writes one small item, whatever the alert's size; the drain reads its entries a page at a
 * time and deletes each one it hands back.
 */
const table = () => resourcesConfig().DIRECTORY_TABLE;
/** A held entry left behind (its drain never came) is gone a day after its alert would have been given up. */
const KEEP_AFTER_DEADLINE_SECONDS = 86_400;

const ownerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('webhook'), clientId: z.string(), endpointId: z.string() }),
  z.object({ kind: z.literal('destination'), key: z.string() }),
]);
const heldListSchema = z.object({ destination: z.string(), owner: ownerSchema, openSince: z.string() });
export type HeldList = z.infer<typeof heldListSchema>;

const heldEntrySchema = z.object({ sk: z.string(), alertId: z.string() });
export type HeldEntry = z.infer<typeof heldEntrySchema>;

/**
 * Lists an alert as held by the circuit of `destination` (again, if the drain took it meanwhile). `deadline`
 * (epoch ms): when the alert's held target is given up at the latest.
 */
export async function listHeldAlert(destination: string, alert: { alertId: string; createdAt: string }, deadline: number): Promise<void> {
  await documentClient().send(
    new PutCommand({
      TableName: table(),
      Item: {
        ...circuitKeys.held(destination, alert.createdAt, alert.alertId),
        alertId: alert.alertId,
        ttl: Math.floor(deadline / 1000) + KEEP_AFTER_DEADLINE_SECONDS,
      },
    }),
  );
}

/** The destinations with a held list, at most `limit` of them. */
export async function heldLists(limit: number): Promise<HeldList[]> {
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': HELD_LISTS },
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  return Items.flatMap((item) => {
    const parsed = heldListSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

/** The oldest `limit` alerts held by the circuit of `destination`, oldest first. */
export async function oldestHeld(destination: string, limit: number): Promise<HeldEntry[]> {
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': heldPartition(destination) },
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  return Items.flatMap((item) => {
    const parsed = heldEntrySchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Takes one alert off a held list (handed back, or no longer able to carry a probe). */
export async function unlistHeldAlert(destination: string, entry: HeldEntry): Promise<void> {
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: { pk: heldPartition(destination), sk: entry.sk } }));
}

/**
 * Forgets a destination whose circuit closed and whose held list was found empty, unless its circuit opened again
 * since (`openSince` moved on): its next holds are drained by a later run. True when forgotten.
 */
export async function forgetHeldList(list: HeldList): Promise<boolean> {
  try {
    await documentClient().send(
      new DeleteCommand({
        TableName: table(),
        Key: circuitKeys.heldList(list.destination),
        ConditionExpression: 'openSince = :seen',
        ExpressionAttributeValues: { ':seen': list.openSince },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}
