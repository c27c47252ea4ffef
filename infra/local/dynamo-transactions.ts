import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
  type GetItemCommandInput,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';

/**
 * dynalite implements every item operation fleetwatch uses except TransactWriteItems and TransactGetItems.
 * This loopback front adds them: it forwards every other request to dynalite unchanged, and runs a transaction
 * as its single-item operations, each with its own condition, restoring the previous images when one fails and
 * answering TransactionCanceledException with cancellation reasons the way DynamoDB does. All requests pass
 * through one queue, so no other request observes a half-applied transaction.
 */
type Item = Record<string, AttributeValue>;

interface Target {
  tableName: string;
  key: Item;
}

class TransactionCanceled extends Error {
  constructor(readonly reasons: { Code: string; Message?: string; Item?: Item }[]) {
    super(`Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`);
  }
}

class ValidationError extends Error {}

export async function startTransactionFront(dynaliteEndpoint: string, port = 0): Promise<{ endpoint: string; server: Server }> {
  const backend = new URL(dynaliteEndpoint);
  const client = new DynamoDBClient({
    endpoint: dynaliteEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const keyNames = new Map<string, string[]>();
  let queue: Promise<unknown> = Promise.resolve();
  const serialised = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work, work);
    queue = result.catch(() => undefined);
    return result;
  };

  async function keyOf(tableName: string, item: Item): Promise<Item> {
    let names = keyNames.get(tableName);
    if (!names) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      names = (Table?.KeySchema ?? []).map((key) => key.AttributeName!);
      keyNames.set(tableName, names);
    }
    return Object.fromEntries(names.map((name) => [name, item[name]!]));
  }

  async function targetOf(entry: TransactWriteItem): Promise<Target> {
    if (entry.Put) return { tableName: entry.Put.TableName!, key: await keyOf(entry.Put.TableName!, entry.Put.Item!) };
    const operation = entry.Update ?? entry.Delete ?? entry.ConditionCheck;
    if (!operation) throw new ValidationError('a TransactItem needs one of Put, Update, Delete, ConditionCheck');
    return { tableName: operation.TableName!, key: operation.Key! };
  }

  async function readImage(target: Target): Promise<Item | undefined> {
    const { Item: image } = await client.send(
      new GetItemCommand({ TableName: target.tableName, Key: target.key, ConsistentRead: true }),
    );
    return image;
  }

  async function restore(target: Target, image: Item | undefined): Promise<void> {
    if (image) await client.send(new PutItemCommand({ TableName: target.tableName, Item: image }));
    else await client.send(new DeleteItemCommand({ TableName: target.tableName, Key: target.key }));
  }

  async function apply(entry: TransactWriteItem): Promise<void> {
    if (entry.Put) {
      await client.send(new PutItemCommand(entry.Put));
    } else if (entry.Delete) {
      await client.send(new DeleteItemCommand(entry.Delete));
    } else if (entry.Update) {
      await client.send(new UpdateItemCommand(entry.Update));
    } else if (entry.ConditionCheck) {
      // evaluated by a conditional update that changes nothing; the image is restored afterwards in any case
      const check = entry.ConditionCheck;
      await client.send(
        new UpdateItemCommand({
          TableName: check.TableName,
          Key: check.Key,
          ConditionExpression: check.ConditionExpression,
          ExpressionAttributeNames: { ...check.ExpressionAttributeNames, '#txNoop': 'txNoop__' },
          ExpressionAttributeValues: check.ExpressionAttributeValues,
          UpdateExpression: 'REMOVE #txNoop',
        }),
      );
    }
  }

  async function transactWrite(input: { TransactItems?: TransactWriteItem[] }): Promise<object> {
    const entries = input.TransactItems ?? [];
    if (entries.length === 0 || entries.length > 100) {
      throw new ValidationError('TransactItems must have between 1 and 100 items');
    }
    const targets = await Promise.all(entries.map(targetOf));
    const seen = new Set<string>();
    for (const target of targets) {
      const id = `${target.tableName}|${JSON.stringify(target.key)}`;
      if (seen.has(id)) throw new ValidationError('Transaction request cannot include multiple operations on one item');
      seen.add(id);
    }
    const images: (Item | undefined)[] = [];
    for (const target of targets) images.push(await readImage(target));
    // Items are distinct, so each condition sees the state before the transaction whatever order they run
    // in: every item is tried, so that all failed conditions are reported, as DynamoDB does.
    const reasons: { Code: string; Message?: string; Item?: Item }[] = [];
    const applied: number[] = [];
    let unexpected: unknown;
    for (const [index, entry] of entries.entries()) {
      if (unexpected !== undefined) break;
      try {
        await apply(entry);
        applied.push(index);
        reasons.push({ Code: 'None' });
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) {
          unexpected = error;
          break;
        }
        const returnsItem = (entry.Put ?? entry.Update ?? entry.Delete ?? entry.ConditionCheck)?.ReturnValuesOnConditionCheckFailure === 'ALL_OLD';
        const image = images[index];
        reasons.push({ Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', ...(returnsItem && image ? { Item: image } : {}) });
      }
    }
    if (unexpected !== undefined || reasons.some((reason) => reason.Code !== 'None')) {
      for (const index of applied.reverse()) await restore(targets[index]!, images[index]);
      if (unexpected !== undefined) throw unexpected;
      throw new TransactionCanceled(reasons);
    }
    for (const [index, entry] of entries.entries()) {
      if (entry.ConditionCheck) await restore(targets[index]!, images[index]);
    }
    return {};
  }

  async function transactGet(input: { TransactItems?: { Get?: Omit<GetItemCommandInput, 'ConsistentRead'> }[] }): Promise<object> {
    const responses = [];
    for (const entry of input.TransactItems ?? []) {
      if (!entry.Get) throw new ValidationError('a TransactItem needs Get');
      const { Item: item } = await client.send(new GetItemCommand({ ...entry.Get, ConsistentRead: true }));
      responses.push(item ? { Item: item } : {});
    }
    return { Responses: responses };
  }

  function forward(req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        { host: backend.hostname, port: backend.port, method: req.method, path: req.url, headers: req.headers },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 500, headers: response.headers, body: Buffer.concat(chunks) }));
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  function sendJson(res: ServerResponse, status: number, payload: object): void {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(JSON.stringify(payload));
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1];
      void serialised(async () => {
        if (operation !== 'TransactWriteItems' && operation !== 'TransactGetItems') {
          const response = await forward(req, body);
          res.writeHead(response.status, response.headers);
          res.end(response.body);
          return;
        }
        try {
          const input = JSON.parse(body.toString('utf8'));
          sendJson(res, 200, operation === 'TransactWriteItems' ? await transactWrite(input) : await transactGet(input));
        } catch (error) {
          if (error instanceof TransactionCanceled) {
            sendJson(res, 400, {
              __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
              message: error.message,
              CancellationReasons: error.reasons,
            });
          } else if (error instanceof ValidationError || (error as Error).name === 'ValidationException') {
            sendJson(res, 400, { __type: 'com.amazon.coral.validate#ValidationException', message: (error as Error).message });
          } else if ((error as Error).name === 'ResourceNotFoundException') {
            sendJson(res, 400, { __type: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException', message: (error as Error).message });
          } else {
            sendJson(res, 500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: (error as Error).message });
          }
        }
      }).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { __type: 'InternalFailure', message: String(error) });
      });
    });
  });
  server.on('close', () => client.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
