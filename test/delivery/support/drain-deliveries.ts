import type { SqsHandler } from '../../../infra/local/sqs-poller';
import { pollUntilEmpty } from '../../support/poll-until-empty';

/**
 * Hands the deliveries queue to the deliver handler as Lambda's mapping does, receive after receive, until a
 * receive finds it empty or `rounds` receives were made (then, with `mustEmpty`, throws). Returns the records taken.
 */
export function drainDeliveries(queueUrl: string, handler: SqsHandler, rounds = 1_000, mustEmpty = false): Promise<number> {
  return pollUntilEmpty(queueUrl, handler, { functionName: 'deliver', rounds, mustEmpty });
}
