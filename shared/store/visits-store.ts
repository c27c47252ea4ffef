import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient } from '../aws/dynamodb';
import { resourcesConfig } from '../config';
import type { VisitRecord } from '../rules/visit-journal';
import { ALERT_RETENTION_DAYS } from './alerts/alerts-store';

/**
 * Geozone visits, written by evaluation in the same transaction as the vehicle's state: the entry puts the open
 * visit, the exit the complete one under the same key. Both are full puts without condition, so a retried
 * commit writes the same item again. Kept as long as alerts.
 */
export const VISIT_ZONE_INDEX = 'byZone';

export const visitItemSchema = z.object({
  vehicleId: z.number().int(),
  zoneId: z.number().int(),
  /** `<startDate>#<zoneId>` */
  visitKey: z.string(),
  /** `<startDate>#<vehicleId>` */
  zoneVisitKey: z.string(),
  startDate: z.string(),
  endDate: z.string().optional(),
  /** Seconds, on a complete visit. */
  duration: z.number().optional(),
  /** Metres travelled inside, on a complete visit. */
  distance: z.number().optional(),
  entryLatitude: z.number(),
  entryLongitude: z.number(),
  exitLatitude: z.number().optional(),
  exitLongitude: z.number().optional(),
  expiresAt: z.number(),
});

export type VisitItem = z.infer<typeof visitItemSchema>;

export const visitsTable = () => resourcesConfig().VISITS_TABLE;

export function buildVisitItem(vehicleId: number, record: VisitRecord, now: number): VisitItem {
  return {
    vehicleId,
    zoneId: record.zoneId,
    visitKey: `${record.startDate}#${record.zoneId}`,
    zoneVisitKey: `${record.startDate}#${vehicleId}`,
    startDate: record.startDate,
    ...(record.endDate === undefined ? {} : { endDate: record.endDate }),
    ...(record.duration === undefined ? {} : { duration: record.duration }),
    ...(record.distance === undefined ? {} : { distance: record.distance }),
    entryLatitude: record.entry.latitude,
    entryLongitude: record.entry.longitude,
    ...(record.exit ? { exitLatitude: record.exit.latitude, exitLongitude: record.exit.longitude } : {}),
    expiresAt: Math.floor(now / 1000) + ALERT_RETENTION_DAYS * 86_400,
  };
}

export function visitPut(item: VisitItem) {
  return { Put: { TableName: visitsTable(), Item: item } };
}

/** Visits started in [fromStart, beforeStart), ISO UTC bounds, of one vehicle or one zone. */
export async function queryVisits(
  source: { kind: 'vehicle'; vehicleId: number } | { kind: 'zone'; zoneId: number },
  fromStart: string,
  beforeStart: string,
): Promise<VisitItem[]> {
  const byVehicle = source.kind === 'vehicle';
  const visits: VisitItem[] = [];
  for await (const page of paginateQuery(
    { client: documentClient() },
    {
      TableName: visitsTable(),
      ...(byVehicle ? {} : { IndexName: VISIT_ZONE_INDEX }),
      KeyConditionExpression: byVehicle
        ? 'vehicleId = :id AND visitKey BETWEEN :from AND :before'
        : 'zoneId = :id AND zoneVisitKey BETWEEN :from AND :before',
      ExpressionAttributeValues: { ':id': byVehicle ? source.vehicleId : source.zoneId, ':from': fromStart, ':before': beforeStart },
    },
  )) {
    for (const item of page.Items ?? []) {
      const parsed = visitItemSchema.safeParse(item);
      // a start exactly at `beforeStart` sorts after it only with its suffix: keep the bound exclusive
      if (parsed.success && parsed.data.startDate < beforeStart) visits.push(parsed.data);
    }
  }
  return visits;
}
