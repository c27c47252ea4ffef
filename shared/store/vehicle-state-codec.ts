import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/**
 * The part of a vehicle's state only evaluation reads (its rules' states, clock, last position, zone gates,
 * noise counters and visit journal) is stored as one Binary attribute: its JSON, compressed with brotli.
 * DynamoDB counts every attribute name and value of an item towards its write units (one per started KB), and
 * that JSON repeats the same keys and nearby times for every rule and visit, which compression folds away.
 * Quality 5: measured on the largest items of test/pipeline/vehicle-item-size.test.ts, 4 packs about 5% larger,
 * 6 to 8 no smaller at the same cost (about 40–60 µs of CPU a write, 15–25 µs a read), 9 and above cost about
 * a millisecond a write. A 64 KB window: the encoder sets up its default 4 MB one for every write, which on a 3.4 KB
 * state took 97 µs a write where 64 KB takes 56 µs, for the same bytes; a state is a few KB.
 */
export const PACKED_STATE_ATTRIBUTE = 'state';
const QUALITY = 5;
const WINDOW_BITS = 16;

export function packState(fields: Record<string, unknown>): Uint8Array {
  const json = Buffer.from(JSON.stringify(fields));
  return brotliCompressSync(json, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: QUALITY,
      [constants.BROTLI_PARAM_LGWIN]: WINDOW_BITS,
      [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
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
