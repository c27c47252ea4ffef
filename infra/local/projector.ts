import { startStreamProjector, type StreamProjector } from './stream-projector';

/**
 * The project function on one machine: fed from the rules and geozones tables' streams in DynamoDB Local, as
 * the event source mapping feeds it on AWS. Errors are printed and the records retried on the next poll.
 */
export async function startLocalProjector(log: (line: string) => void = (line) => console.error(line)): Promise<StreamProjector> {
  return startStreamProjector({
    onError: (error) => log(`projector: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`),
  });
}
