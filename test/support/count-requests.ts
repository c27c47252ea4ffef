import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/clients';

/**
 * Counts the DynamoDB requests a piece of code makes, by command and by table, with a middleware on the
 * client's own stack. It sits in the deserialize step, inside the SDK's retry loop, so every attempt that
 * DynamoDB answered counts (a throttled and retried request counts twice, as it is billed).
 */
export interface RequestCounter {
  /** Requests per command name, e.g. `{ BatchGetItem: 10, TransactWriteItems: 10 }`. */
  byCommand(): Record<string, number>;
  /** Requests per `${command} ${table}`; a request touching several tables counts for each of them. */
  byTable(): Record<string, number>;
  /** Attempts that failed (retried by the SDK or thrown), per `${command} ${error name}`. */
  failures(): Record<string, number>;
  /** Requests that touched this table. */
  forTable(tableName: string): number;
  total(): number;
  reset(): void;
  detach(): void;
}

let counters = 0;

export function countDynamoRequests(client: DynamoDBDocumentClient = documentClient()): RequestCounter {
  const name = `fleetwatchRequestCounter${++counters}`;
  let commands: Record<string, number> = {};
  let tables: Record<string, number> = {};
  let failures: Record<string, number> = {};
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? 'Unknown').replace(/Command$/, '');
      const count = () => {
        commands[command] = (commands[command] ?? 0) + 1;
        for (const table of tablesOf(args.input as Record<string, unknown>)) {
          const key = `${command} ${table}`;
          tables[key] = (tables[key] ?? 0) + 1;
        }
      };
      try {
        const result = await next(args);
        count();
        return result;
      } catch (error) {
        // an error with an HTTP status was answered by DynamoDB and counts; a connection dropped before any
        // answer (the SDK retries it) never reached it and is only recorded as a failure
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== undefined) count();
        const key = `${command} ${(error as Error).name}`;
        failures[key] = (failures[key] ?? 0) + 1;
        throw error;
      }
    },
    { step: 'deserialize', name },
  );
  return {
    byCommand: () => ({ ...commands }),
    byTable: () => ({ ...tables }),
    failures: () => ({ ...failures }),
    forTable: (tableName) =>
      Object.entries(tables)
        .filter(([key]) => key.endsWith(` ${tableName}`))
        .reduce((sum, [, count]) => sum + count, 0),
    total: () => Object.values(commands).reduce((sum, count) => sum + count, 0),
    reset: () => {
      commands = {};
      tables = {};
      failures = {};
    },
    detach: () => {
      client.middlewareStack.remove(name);
    },
  };
}

function tablesOf(input: Record<string, unknown>): Set<string> {
  const tables = new Set<string>();
  if (typeof input.TableName === 'string') tables.add(input.TableName);
  for (const key of ['RequestItems'] as const) {
    const map = input[key];
    if (map && typeof map === 'object') for (const table of Object.keys(map)) tables.add(table);
  }
  if (Array.isArray(input.TransactItems)) {
    for (const item of input.TransactItems as Record<string, { TableName?: string } | undefined>[]) {
      for (const operation of Object.values(item)) if (operation?.TableName) tables.add(operation.TableName);
    }
  }
  return tables;
}
