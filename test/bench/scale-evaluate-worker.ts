/**
 * One evaluate container, alone in its process, for `npm run bench:scale`: runs the real handler over
 * batches of 10 messages from random vehicles of the seeded platform and reports its resident memory.
 * The tables' names and DynamoDB Local come from the environment the parent passes.
 */
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { lambdaContext } from '../../infra/local/sqs-poller';
import { sqsRecord, terminalMessage } from '../pipeline/support';
import { captureOutput } from '../support/replay-output';
import { seededRandom } from './timing';

const vehicles = Number(process.env.SCALE_VEHICLES);
const messages = Number(process.env.SCALE_MESSAGES);
const at = Number(process.env.SCALE_NOW);
const random = seededRandom(99);
const handler = createEvaluateHandler({ clock: () => at });
globalThis.gc?.();
// what the process holds before the first message: Node, tsx's compiled sources and the loaded modules
const startRssMb = process.memoryUsage().rss / 2 ** 20;
const output = captureOutput({ silent: true, keep: false });
let failed = 0;
try {
  for (let sent = 0; sent < messages; sent += 10) {
    const records = Array.from({ length: 10 }, () =>
      sqsRecord(terminalMessage(1 + Math.floor(random() * vehicles), (at - Date.parse('2026-03-01T00:00:00.000Z')) / 1000 - 5, 50 + random() * 30)),
    );
    const response = await handler({ Records: records }, lambdaContext('evaluate'));
    failed += response.batchItemFailures.length;
  }
} finally {
  output.restore();
}
globalThis.gc?.();
process.stdout.write(
  `${JSON.stringify({ rssMb: process.memoryUsage().rss / 2 ** 20, startRssMb, heapMb: process.memoryUsage().heapUsed / 2 ** 20, failed })}\n`,
);
