import * as z from 'zod';

/** Limits that keep one noisy terminal from costing the whole pipeline. */
export const MESSAGE_LIMITS = {
  maxParameters: 200,
  maxParameterKeyLength: 64,
  maxParameterValueLength: 512,
  /** A device clock may run ahead of the server; beyond this the message is rejected as from the future. */
  futureToleranceMs: 5 * 60_000,
} as const;

/** Device and server times may carry any offset; inside, every time is UTC. */
const isoTime = z.iso.datetime({ offset: true }).transform((time) => new Date(time).toISOString());

/**
 * Rounds a reading to a fixed number of decimals. Beyond the precision terminals have, digits are noise; and
 * DynamoDB cannot store numbers closer to zero than 1e-130, so an unrounded 1e-200 would fail its whole write.
 */
function rounded(decimals: number) {
  const factor = 10 ** decimals;
  return (value: number) => Math.round(value * factor) / factor || 0;
}

/** 7 decimals of a degree is about 1 cm. */
const coordinate = (limit: number) => z.number().min(-limit).max(limit).transform(rounded(7));
const measurement = (min: number, max: number) => z.number().min(min).max(max).transform(rounded(3));

/** Terminals report parameters as strings; numbers and booleans are accepted and kept in string form. */
const parameterValue = z
  .union([z.string(), z.number(), z.boolean()])
  .transform((value) => String(value))
  .pipe(z.string().max(MESSAGE_LIMITS.maxParameterValueLength));

export const terminalMessageSchema = z.object({
  vehicleId: z.number().int().min(1).max(2_147_483_647),
  deviceTime: isoTime,
  serverTime: isoTime.optional(),
  /**
   * The producer's stamp: the newest deviceTime it had already sent for this vehicle before this message (docs/producer.md).
   * At or after deviceTime, the message is late.
   */
  previousDeviceTime: isoTime.optional(),
  latitude: coordinate(90),
  longitude: coordinate(180),
  speed: measurement(0, 1_000),
  course: measurement(0, 360).optional(),
  altitude: measurement(-1_000, 100_000).optional(),
  satellites: z.number().int().min(0).max(255).optional(),
  voltage: measurement(-1_000, 1_000).optional(),
  parameters: z
    .record(z.string().min(1).max(MESSAGE_LIMITS.maxParameterKeyLength), parameterValue)
    .refine((map) => Object.keys(map).length <= MESSAGE_LIMITS.maxParameters, {
      message: `at most ${MESSAGE_LIMITS.maxParameters} parameters`,
    })
    .default({}),
  photoCount: z.number().int().min(0).optional(),
  lbsCorrectedCoords: z.boolean().optional(),
  protocolType: z.union([z.number().int(), z.string().max(64)]).optional(),
});

export type TerminalMessage = z.infer<typeof terminalMessageSchema>;
/** What a producer sends: parameters may be numbers or booleans and may be left out. */
export type TerminalMessageInput = z.input<typeof terminalMessageSchema>;

export type MessageParseResult = { ok: true; message: TerminalMessage } | { ok: false; reason: string };

/**
 * Parses a raw queue body. The reason names every problem so that it can travel with the message to the DLQ.
 * `now` is passed in rather than read so that the check is deterministic.
 */
export function parseTerminalMessage(body: string, now: number): MessageParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (error) {
    return { ok: false, reason: `malformed JSON: ${(error as Error).message}` };
  }
  const parsed = terminalMessageSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, reason: formatIssues(parsed.error.issues) };
  }
  const future = timesFromTheFuture(parsed.data, now);
  if (future.length > 0) {
    return { ok: false, reason: future.map((field) => `${field}: ${parsed.data[field]} is in the future beyond the tolerance`).join('; ') };
  }
  return { ok: true, message: parsed.data };
}

/**
 * The message's device times that lie beyond the future tolerance of `arrival`. A stamp there names a message
 * that could not have been accepted, and would make every message after it late.
 */
export function timesFromTheFuture(message: TerminalMessage, arrival: number): ('deviceTime' | 'previousDeviceTime')[] {
  const limit = arrival + MESSAGE_LIMITS.futureToleranceMs;
  return (['deviceTime', 'previousDeviceTime'] as const).filter((field) => {
    const time = message[field];
    return time !== undefined && Date.parse(time) > limit;
  });
}

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`).join('; ');
}
