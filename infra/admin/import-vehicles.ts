import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { guidSchema } from '../../shared/schemas/notification';
import { registerVehicle, UnknownClientError, type RuleRef } from '../../shared/store/vehicle-registry';

/**
 * Bulk import of the platform's vehicle records (the answer of `POST /api/v3/vehicles/find`: a JSON list of
 * records with vehicleId, name and parentId; other fields are ignored), or `{ "vehicles": [...] }`.
 * The platform is the registry of record, so a vehicle it lists under another client is moved, and the
 * report names the rules that stop applying. Running the same file again changes nothing.
 */
const platformVehicleSchema = z.object({
  vehicleId: z.number().int().min(1).max(2_147_483_647),
  name: z.string().trim().min(1).max(200),
  parentId: guidSchema,
});

const fileSchema = z.union([z.array(z.unknown()), z.object({ vehicles: z.array(z.unknown()) }).transform((file) => file.vehicles)]);

export interface ImportReport {
  created: number;
  renamed: number;
  unchanged: number;
  moved: { vehicleId: number; from: string; to: string; rulesNoLongerApplying: RuleRef[] }[];
  /** Records that could not be imported, by position in the file. */
  rejected: { index: number; vehicleId?: number; reason: string }[];
}

export async function importVehicles(path: string): Promise<ImportReport> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${path} as JSON: ${(error as Error).message}`, { cause: error });
  }
  const records = fileSchema.safeParse(json);
  if (!records.success) throw new Error(`${path} is neither a list of vehicle records nor { "vehicles": [...] }`);
  const report: ImportReport = { created: 0, renamed: 0, unchanged: 0, moved: [], rejected: [] };
  for (const [index, raw] of records.data.entries()) {
    const parsed = platformVehicleSchema.safeParse(raw);
    if (!parsed.success) {
      const vehicleId = (raw as { vehicleId?: unknown } | null)?.vehicleId;
      report.rejected.push({
        index,
        ...(typeof vehicleId === 'number' ? { vehicleId } : {}),
        reason: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(record)'}: ${issue.message}`).join('; '),
      });
      continue;
    }
    try {
      const result = await registerVehicle(parsed.data, { allowMove: true });
      if (result.outcome === 'moved') {
        report.moved.push({
          vehicleId: result.vehicle.vehicleId,
          from: result.from,
          to: result.vehicle.parentId,
          rulesNoLongerApplying: result.rulesNoLongerApplying,
        });
      } else {
        report[result.outcome]++;
      }
    } catch (error) {
      if (!(error instanceof UnknownClientError)) throw error;
      report.rejected.push({ index, vehicleId: parsed.data.vehicleId, reason: error.message });
    }
  }
  return report;
}
