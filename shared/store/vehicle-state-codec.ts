import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/**
 * The part of a vehicle's state only evaluation reads (its rules' states, clock, last position, zone gates,
 * noise counters and visit journal) is stored as one Binary attribute: its JSON, compressed with brotli.
 * DynamoDB counts every attribute name and value of an item towards its write units (one per started KB), and
 * that JSON repeats the same keys and nearby times for every rule and visit, which compression folds away: a
 * vehicle with ten alerted rules and two open visits keeps to one write unit. Quality 6: encoding at 9 and
 * above costs milliseconds for a few bytes; below 6 the item grows by a tenth and more (docs/benchmarks.md).
 */
export const PACKED_STATE_ATTRIBUTE = 'state';
const QUALITY = 6;

export function packState(fields: Record<string, unknown>): Uint8Array {
  const json = Buffer.from(JSON.stringify(fields));
  return brotliCompressSync(json, {
    params: { [constants.BROTLI_PARAM_QUALITY]: QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: json.length },
  });
}

/** The fields packed in the attribute; undefined when it is not a packed state (not binary, not brotli, not JSON). */
export function unpackState(packed: unknown): Record<string, unknown> | undefined {
  if (!(packed instanceof Uint8Array)) return undefined;
  try {
    const fields: unknown = JSON.parse(brotliDecompressSync(packed).toString());
    return typeof fields === 'object' && fields !== null && !Array.isArray(fields) ? (fields as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
