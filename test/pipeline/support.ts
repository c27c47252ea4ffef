import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { documentClient, sqsClient } from '../../shared/aws/clients';
import { resourcesConfig } from '../../shared/config';
import { type StoredRule } from '../../shared/schemas/notification';
import type { TerminalMessageInput } from '../../shared/schemas/terminal-message';
import { lambdaContext, toSqsRecord } from '../../infra/local/sqs-poller';
import { PIPELINE_RULE_DEFAULTS, T0, storedRule as baseStoredRule } from '../support/fixtures';
import { projectRuleChange } from '../../shared/pipeline/projection';
import { createGeozone } from '../../shared/store/geozones-store';
import { ruleItem } from '../../shared/store/rules-store';
import { setVehicleOwners } from '../../shared/store/vehicle-state-store';

/** Builders and probes shared by the pipeline tests: rules in the table, SQS events, queue contents. */
export { DAY_MS, PARENT_ID, T0 } from '../support/fixtures';

/** The shared stored rule (test/support/fixtures) as the pipeline tests take it: created the day before T0, in force 30 days. */
export const storedRule = (overrides: Partial<StoredRule> = {}): StoredRule => baseStoredRule(overrides, PIPELINE_RULE_DEFAULTS);

/**
 * Stores a rule as the API would, then projects the change onto its vehicles as the rules table's stream
 * does (the projector's own function, called directly instead of waiting for the stream poller). Unless told
 * otherwise, the rule's vehicles are registered to the rule's client, as the directory would.
 */
export async function putRule(rule: StoredRule, options: { registerVehicles?: boolean } = {}): Promise<void> {
  const TableName = resourcesConfig().RULES_TABLE;
  const { Item: previous } = await documentClient().send(new GetCommand({ TableName, Key: { id: rule.id }, ConsistentRead: true }));
  await documentClient().send(new PutCommand({ TableName, Item: ruleItem(rule) }));
  await projectRuleChange(previous, rule);
  if (options.registerVehicles ?? true) await registerVehicles(rule.vehicleIds, [rule.parentId]);
}

/** Records the vehicles' owner (owner first, then the clients above it) on their items, as the directory does. */
export async function registerVehicles(vehicleIds: readonly number[], owners: readonly string[]): Promise<void> {
  for (const vehicleId of new Set(vehicleIds)) await setVehicleOwners(vehicleId, owners);
}

export function terminalMessage(
  vehicleId: number,
  secondsAfterT0: number,
  speed: number,
  extra: Partial<TerminalMessageInput> = {},
): TerminalMessageInput {
  return {
    vehicleId,
    deviceTime: new Date(T0 + secondsAfterT0 * 1000).toISOString(),
    latitude: 55.75,
    longitude: 37.62,
    speed,
    ...extra,
  };
}

let sequence = 0;

/** An SQS record as Lambda delivers it from the FIFO input queue. */
export function sqsRecord(body: unknown, messageId = `m-${++sequence}`): SQSRecord {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const group = typeof body === 'object' && body !== null && 'vehicleId' in body ? String(body.vehicleId) : 'unknown';
  return toSqsRecord(
    { MessageId: messageId, ReceiptHandle: `rh-${messageId}`, Body: text, Attributes: { MessageGroupId: group } },
    'arn:aws:sqs:us-east-1:000000000000:input.fifo',
  );
}

export type SqsHandler = (event: SQSEvent, context: ReturnType<typeof lambdaContext>) => Promise<SQSBatchResponse>;

export async function invoke(handler: SqsHandler, records: SQSRecord[]): Promise<SQSBatchResponse> {
  return handler({ Records: records }, lambdaContext('evaluate'));
}

/** Everything currently on a queue, received and deleted (a second call sees only what arrived since). */
export async function drainQueue(queueUrl: string): Promise<Message[]> {
  const all: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 600,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return all;
    all.push(...Messages);
    await sqsClient().send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! })),
      }),
    );
  }
}

export async function scanTable(tableName: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const output = await documentClient().send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: start }));
    items.push(...(output.Items ?? []));
    start = output.LastEvaluatedKey;
  } while (start);
  return items;
}

export async function alertsInTable(): Promise<Record<string, unknown>[]> {
  return scanTable(resourcesConfig().ALERTS_TABLE);
}

/** Stores a circular geozone of a client, with its area and perimeter as the platform computes them. */
export function storeCircleZone(zone: {
  parentId: string;
  name: string;
  center: { latitude: number; longitude: number };
  radius: number;
  createDate?: string;
}) {
  return createGeozone({
    name: zone.name,
    type: 'circle',
    parentId: zone.parentId,
    radius: zone.radius,
    description: '',
    geometry: { type: 'Point', coordinates: [zone.center.longitude, zone.center.latitude] },
    area: Math.round(Math.PI * zone.radius ** 2),
    perimetr: Math.round(2 * Math.PI * zone.radius),
    createDate: zone.createDate ?? new Date(T0).toISOString(),
  });
}
