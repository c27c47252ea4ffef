import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Kills an evaluate invocation in the middle of its batch, as a Lambda timeout or an out-of-memory would:
 * after its n-th TransactWriteItems has committed, every further DynamoDB call of the invocation fails
 * (including answers to transactions already on the wire, which DynamoDB may still commit), and the runner
 * discards whatever the handler returns. Where the invocation died is recorded:
 * - afterCommit: right after its last transaction, before it could ask for delivery;
 * - betweenTransactions: with another transaction of the batch in flight or still to come;
 * - beforeReport: no kill point was reached; it finished its work and died before reporting batch item failures.
 */
export type KillPoint = 'afterCommit' | 'betweenTransactions' | 'beforeReport';

export class InvocationKilledError extends Error {
  override name = 'InvocationKilledError';
}

const TRANSACT = 'TransactWriteItemsCommand';

export class InvocationKiller {
  private killAfter: number | undefined;
  private committed = 0;
  private inFlight = 0;
  private dead = false;
  private transactionAfterDeath = false;

  /** `onDeath` cuts the invocation's other ways out (its SQS calls), since this switch only sits in DynamoDB's client. */
  constructor(private readonly onDeath: () => void) {}

  /** Adds the kill switch to a client (again after the cached clients were reset). */
  install(client: DynamoDBDocumentClient): void {
    if (client.middlewareStack.identify().some((entry) => entry.startsWith('invocationKiller'))) return;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const transaction = context.commandName === TRANSACT;
        if (this.dead) {
          if (transaction) this.transactionAfterDeath = true;
          throw new InvocationKilledError('the invocation was killed');
        }
        if (transaction) this.inFlight++;
        try {
          const result = await next(args);
          if (this.dead) throw new InvocationKilledError('the invocation was killed while this request was on the wire');
          if (transaction && this.killAfter !== undefined && ++this.committed >= this.killAfter) {
            this.dead = true;
            this.onDeath();
            // another transaction of this batch is already on the wire
            if (this.inFlight > 1) this.transactionAfterDeath = true;
          }
          return result;
        } finally {
          if (transaction) this.inFlight--;
        }
      },
      { step: 'initialize', name: 'invocationKiller' },
    );
  }

  /** The next invocation dies after its `transactions`-th committed TransactWriteItems. */
  arm(transactions: number): void {
    this.killAfter = transactions;
    this.committed = 0;
    this.dead = false;
    this.transactionAfterDeath = false;
  }

  get killed(): boolean {
    return this.dead;
  }

  /** Where the armed invocation died; disarms. */
  disarm(): KillPoint {
    const point: KillPoint = !this.dead ? 'beforeReport' : this.transactionAfterDeath ? 'betweenTransactions' : 'afterCommit';
    this.killAfter = undefined;
    this.dead = false;
    this.transactionAfterDeath = false;
    return point;
  }
}
