import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../../shared/aws/clients';
import type { DeliverDependencies } from '../../../functions/deliver/handler';
import { deliverHandler } from '../../support/deliver-handler';
import { pollOnce, type SqsHandler } from '../../../infra/local/sqs-poller';
import { runAlertDuePass, type DuePassResult } from '../../../shared/sweep/alert-due-pass';
import { holdQueueDelays, type QueueDelays } from '../../support/queue-delays';

/**
 * The deliver function on a simulated clock, over the real deliveries queue: the waits it puts on the queue end
 * when the clock says so (holdQueueDelays), and the sweep's due pass runs at the clock's time, so hours of retries
 * pass in a moment. Failed records without a wait of their own come back at once, as `pollOnce` leaves them.
 */
export class SimulatedDelivery {
  now: number;
  readonly handler: SqsHandler;
  private readonly delays: QueueDelays;

  constructor(
    private readonly queueUrl: string,
    start: number = Date.now(),
    overrides: Partial<DeliverDependencies> = {},
  ) {
    this.now = start;
    this.handler = deliverHandler({ clock: () => this.now, ...overrides });
    this.delays = holdQueueDelays(queueUrl, () => this.now);
  }

  async enqueue(body: unknown): Promise<void> {
    await sqsClient().send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: typeof body === 'string' ? body : JSON.stringify(body) }));
  }

  /** One receive: hands what its wait ended by now back to the queue, then one batch to the handler. */
  async deliverOnce(): Promise<number> {
    await this.delays.release();
    return pollOnce({ queueUrl: this.queueUrl, handler: this.handler, functionName: 'deliver', visibilityTimeoutSeconds: 0 });
  }

  /** Receives until a receive finds nothing visible. Returns the records taken. */
  async drain(rounds = 50): Promise<number> {
    let taken = 0;
    for (let round = 0; round < rounds; round++) {
      const polled = await this.deliverOnce();
      if (polled === 0) return taken;
      taken += polled;
    }
    throw new Error(`the deliveries queue still hands out records after ${rounds} receives`);
  }

  /**
   * Drains the queue, then moves the clock to each wait the queue holds in turn and drains again, until none is
   * left: what an alert's short retries come to. Waits on the due index are the sweep's (sweepDue).
   */
  async settle(rounds = 20): Promise<void> {
    await this.drain();
    for (let round = 0; round < rounds; round++) {
      const [next] = this.queueWaits();
      if (next === undefined) return;
      this.now = Math.max(this.now, next);
      await this.drain();
    }
    throw new Error(`the deliveries queue still holds waits after ${rounds} rounds`);
  }

  /** The sweep's due pass at the clock's time, then the deliveries it enqueued. */
  async sweepDue(): Promise<DuePassResult> {
    const result = await runAlertDuePass(this.now);
    await this.drain();
    return result;
  }

  /** When the waits on the queue end (simulated epoch ms), soonest first. */
  queueWaits(): number[] {
    return this.delays.pending();
  }

  /** The waits the deliver function asked the queue for, in seconds. */
  askedWaits(): number[] {
    return this.delays.asked();
  }

  stop(): void {
    this.delays.detach();
  }
}
