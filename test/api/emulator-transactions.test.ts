import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactGetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';

describe('DynamoDB transactions on DynamoDB Local', () => {
  let emulators: Emulators;
  let table: string;
  beforeAll(async () => {
    emulators = await startTestEmulators('api-transactions');
    table = resourcesConfig().RULES_TABLE;
  });
  afterAll(async () => emulators.stop());

  const read = async (id: number) => (await documentClient().send(new GetCommand({ TableName: table, Key: { id } }))).Item;

  it('applies every write when all conditions hold', async () => {
    await documentClient().send(new PutCommand({ TableName: table, Item: { id: 1, n: 1 } }));
    await documentClient().send(new PutCommand({ TableName: table, Item: { id: 3 } }));
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table, Item: { id: 2, n: 2 }, ConditionExpression: 'attribute_not_exists(id)' } },
          { Update: { TableName: table, Key: { id: 1 }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } } },
          { ConditionCheck: { TableName: table, Key: { id: 3 }, ConditionExpression: 'attribute_exists(id)' } },
        ],
      }),
    );
    expect(await read(1)).toEqual({ id: 1, n: 2 });
    expect(await read(3)).toEqual({ id: 3 });
    expect(await read(2)).toEqual({ id: 2, n: 2 });
  });

  it('applies nothing and names every failed condition when one fails', async () => {
    await documentClient().send(new PutCommand({ TableName: table, Item: { id: 10, n: 1 } }));
    const attempt = documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: { TableName: table, Key: { id: 10 }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } } },
          { Put: { TableName: table, Item: { id: 11 } } },
          { ConditionCheck: { TableName: table, Key: { id: 12 }, ConditionExpression: 'attribute_exists(id)' } },
          { Put: { TableName: table, Item: { id: 10 + 3 } } },
          { Put: { TableName: table, Item: { id: 1 }, ConditionExpression: 'attribute_not_exists(id)' } },
        ],
      }),
    );
    const error = await attempt.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual([
      'None',
      'None',
      'ConditionalCheckFailed',
      'None',
      'ConditionalCheckFailed',
    ]);
    expect(await read(10)).toEqual({ id: 10, n: 1 });
    expect(await read(11)).toBeUndefined();
    expect(await read(12)).toBeUndefined();
    expect(await read(13)).toBeUndefined();
    expect(await read(1)).toEqual({ id: 1, n: 2 });
  });

  it('rejects two operations on one item', async () => {
    const attempt = documentClient().send(
      new TransactWriteCommand({
        TransactItems: [{ Put: { TableName: table, Item: { id: 20 } } }, { Delete: { TableName: table, Key: { id: 20 } } }],
      }),
    );
    await expect(attempt).rejects.toThrow(/multiple operations on one item/);
  });

  it('reads several items at once', async () => {
    await documentClient().send(new PutCommand({ TableName: table, Item: { id: 30, n: 3 } }));
    const { Responses } = await documentClient().send(
      new TransactGetCommand({ TransactItems: [{ Get: { TableName: table, Key: { id: 30 } } }, { Get: { TableName: table, Key: { id: 31 } } }] }),
    );
    expect(Responses?.map((response) => response.Item)).toEqual([{ id: 30, n: 3 }, undefined]);
  });

  // DynamoDB cancels a transaction with TransactionConflict when another transaction or write touches one of
  // its items at the same moment. DynamoDB Local runs transactions one after another and never reports it:
  // the commit's conflict branch (re-evaluate, then retry) is exercised on AWS only.
  it.fails('cancels one of two concurrent transactions on one item with TransactionConflict (DynamoDB Local serialises them)', async () => {
    await documentClient().send(new PutCommand({ TableName: table, Item: { id: 40, n: 0 } }));
    const bump = (other: number) =>
      documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: { TableName: table, Key: { id: 40 }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } } },
            { Put: { TableName: table, Item: { id: other } } },
          ],
        }),
      );
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, index) => bump(41 + index)));
    const conflicts = outcomes.filter(
      (outcome) =>
        outcome.status === 'rejected' &&
        (outcome.reason as TransactionCanceledException).CancellationReasons?.some((reason) => reason.Code === 'TransactionConflict'),
    );
    expect(conflicts.length).toBeGreaterThan(0);
  });
});
