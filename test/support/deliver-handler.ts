import { createDeliverHandler, type DeliverDependencies } from '../../functions/deliver/handler';
import type { SqsHandler } from '../../infra/local/sqs-poller';

/**
 * The deliver handler as the local SQS poller calls it: middy's handler takes Lambda's (event, context), and this
 * typed wrapper saves a cast. Without vitest, so that benches and scripts may use it too.
 */
export function deliverHandler(dependencies: Partial<DeliverDependencies> = {}): SqsHandler {
  const handler = createDeliverHandler(dependencies);
  return (event, context) => handler(event, context);
}
