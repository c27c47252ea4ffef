import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { visitsTable } from './visits-store';

/**
 * The suppressed log of one rule on one vehicle: why its evaluations did not become alerts, as runs of one
 * reason (first and last time, count). One item per (vehicle, rule) in the visits table, keyed by the vehicle
 * and `suppressed#<rule id>` (it carries no `zoneId`, so the `byZone` index leaves it out, and it sorts after
 * every visit key, which begin with a date), holding SUPPRESSED_LOG_SLOTS entries `e0`… as a ring: a run is
 * written to its slot once it closes (the open run lives in the vehicle's item), with one UpdateItem that
 * needs no read; the item expires SUPPRESSED_LOG_DAYS after its last write.
 */
export const SUPPRESSED_LOG_DAYS = 30;

/**
 * [reason index (SUPPRESSION_REASONS), first, last (epoch ms), count, detail]: the detail of a `tooOld` run is its
 * oldest message's age (seconds), of a `silenced` run the maintenance silence's id.
 */
export const storedRunSchema = z.tuple([
  z.number().int().min(0),
  z.number(),
  z.number(),
  z.number().int().min(1),
  z.union([z.number().int().min(0), z.string()]).optional(),
]);
export type StoredRun = z.infer<typeof storedRunSchema>;

export interface LogWrite {
  vehicleId: number;
  ruleId: number;
  slot: number;
  run: StoredRun;
}

const logKey = (vehicleId: number, ruleId: number) => ({ vehicleId, visitKey: `suppressed#${ruleId}` });

/** At most this many log writes at once per invocation. */
const WRITE_CONCURRENCY = 8;

/** Writes closed runs to their slots. */
export async function writeSuppressedRuns(writes: readonly LogWrite[], now: number): Promise<void> {
  const limit = pLimit(WRITE_CONCURRENCY);
  const expiresAt = Math.floor(now / 1000) + SUPPRESSED_LOG_DAYS * 86_400;
  await Promise.all(
    writes.map((write) =>
      limit(() =>
        documentClient().send(
          new UpdateCommand({
            TableName: visitsTable(),
            Key: logKey(write.vehicleId, write.ruleId),
            UpdateExpression: 'SET #slot = :run, expiresAt = :expires',
            ExpressionAttributeNames: { '#slot': `e${write.slot}` },
            ExpressionAttributeValues: { ':run': write.run, ':expires': expiresAt },
          }),
        ),
      ),
    ),
  );
}

/** The logged runs of one rule on one vehicle (unordered); none when nothing was logged or the log expired. */
export async function readSuppressedRuns(vehicleId: number, ruleId: number, now: number): Promise<StoredRun[]> {
  const key = logKey(vehicleId, ruleId);
  const { Items } = await documentClient().send(
    new QueryCommand({
      TableName: visitsTable(),
      KeyConditionExpression: 'vehicleId = :vehicle AND visitKey = :key',
      ExpressionAttributeValues: { ':vehicle': key.vehicleId, ':key': key.visitKey },
    }),
  );
  const item = Items?.[0];
  // TTL deletion lags: an expired item is as good as gone
  if (!item || (typeof item.expiresAt === 'number' && item.expiresAt * 1000 <= now)) return [];
  return Object.entries(item)
    .filter(([name]) => /^e\d+$/.test(name))
    .flatMap(([, value]) => {
      const parsed = storedRunSchema.safeParse(value);
      return parsed.success ? [parsed.data] : [];
    });
}
