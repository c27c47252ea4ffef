import { startStreamProjector } from './stream-projector';

/**
 * The project function on one machine: fed from the rules and geozones tables' streams in DynamoDB Local, as
 * the event source mapping feeds it on AWS (from the streams' oldest records, so that rules written before it
 * started are projected too). A failed poll is reported and retried on the next one.
 * Resolves to the function that stops it.
 */
export async function startLocalProjector(onError: (error: unknown) => void): Promise<() => Promise<void>> {
  const projector = await startStreamProjector({ onError });
  return () => projector.stop();
}
