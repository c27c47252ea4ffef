import { DeleteLogGroupCommand, type CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DeleteTableCommand, DescribeTableCommand, UpdateTableCommand, waitUntilTableExists, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeKeyCommand, ScheduleKeyDeletionCommand, type KMSClient } from '@aws-sdk/client-kms';
import { DeleteSecretCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { errorName, errorText } from '../preflight/errors';
import { KEY_DELETION_WINDOW_DAYS } from '../stack-facts';
import type { CleanupClients } from './clients';
import type { CleanupKind, Leftover } from './kinds';

/** removed; gone before we came; skipped (a key already scheduled); left alone (a kind not removed); failed. */
export type OutcomeStatus = 'removed' | 'gone' | 'skipped' | 'left' | 'failed';

export interface Outcome {
  status: OutcomeStatus;
  detail: string;
}

export const LEFT_ALONE = 'left alone: remove by hand';

/** What `--yes` would do to each kind, as the dry run says it. */
export const PLANS: Record<CleanupKind, string> = {
  'AWS::DynamoDB::Table': 'would turn deletion protection off, then delete the table',
  'AWS::Logs::LogGroup': 'would delete the log group',
  'AWS::KMS::Key': `would schedule the key's deletion in ${KEY_DELETION_WINDOW_DAYS} days, unless already scheduled`,
  'AWS::SecretsManager::Secret': 'would delete the secret without a recovery window',
};

export function plannedAction(leftover: Leftover): string {
  return leftover.kind === undefined ? LEFT_ALONE : PLANS[leftover.kind];
}

/** The resource is gone already: another run, or CloudFormation, removed it after it was listed. */
function isGone(error: unknown): boolean {
  return ['ResourceNotFoundException', 'NotFoundException'].includes(errorName(error));
}

/** Table operations DeleteTable refuses to overlap (ResourceInUseException), and that end by themselves. */
const TRANSIENT_TABLE_STATES = new Set(['CREATING', 'UPDATING']);

async function removeTable(dynamodb: DynamoDBClient, name: string): Promise<Outcome> {
  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: name }));
  if (Table?.TableStatus === 'DELETING') return { status: 'gone', detail: 'already being deleted' };
  let status: string | undefined = Table?.TableStatus;
  const protectedTable = Table?.DeletionProtectionEnabled === true;
  if (protectedTable) {
    const { TableDescription } = await dynamodb.send(new UpdateTableCommand({ TableName: name, DeletionProtectionEnabled: false }));
    status = TableDescription?.TableStatus ?? status;
  }
  if (status !== undefined && TRANSIENT_TABLE_STATES.has(status)) {
    await waitUntilTableExists({ client: dynamodb, maxWaitTime: 300 }, { TableName: name });
  }
  await dynamodb.send(new DeleteTableCommand({ TableName: name }));
  return { status: 'removed', detail: protectedTable ? 'deletion protection turned off, table deleted' : 'table deleted' };
}

async function removeLogGroup(logs: CloudWatchLogsClient, name: string): Promise<Outcome> {
  await logs.send(new DeleteLogGroupCommand({ logGroupName: name }));
  return { status: 'removed', detail: 'log group deleted' };
}

const day = (date: Date | undefined) => (date ? ` (on ${date.toISOString().slice(0, 10)})` : '');

async function removeKey(kms: KMSClient, keyId: string): Promise<Outcome> {
  const { KeyMetadata } = await kms.send(new DescribeKeyCommand({ KeyId: keyId }));
  if (KeyMetadata?.KeyState === 'PendingDeletion' || KeyMetadata?.KeyState === 'PendingReplicaDeletion') {
    return { status: 'skipped', detail: `already scheduled for deletion${day(KeyMetadata.DeletionDate)}` };
  }
  const { DeletionDate } = await kms.send(new ScheduleKeyDeletionCommand({ KeyId: keyId, PendingWindowInDays: KEY_DELETION_WINDOW_DAYS }));
  return { status: 'removed', detail: `scheduled for deletion in ${KEY_DELETION_WINDOW_DAYS} days${day(DeletionDate)}` };
}

async function removeSecret(secretsManager: SecretsManagerClient, arn: string): Promise<Outcome> {
  await secretsManager.send(new DeleteSecretCommand({ SecretId: arn, ForceDeleteWithoutRecovery: true }));
  return { status: 'removed', detail: 'secret deleted without a recovery window' };
}

/** Removes one leftover the way its kind needs; never throws: a failure is an outcome. */
export async function removeLeftover(clients: CleanupClients, { kind, id }: Leftover): Promise<Outcome> {
  try {
    switch (kind) {
      case 'AWS::DynamoDB::Table':
        return await removeTable(clients.dynamodb, id);
      case 'AWS::Logs::LogGroup':
        return await removeLogGroup(clients.logs, id);
      case 'AWS::KMS::Key':
        return await removeKey(clients.kms, id);
      case 'AWS::SecretsManager::Secret':
        return await removeSecret(clients.secretsManager, id);
      case undefined:
        return { status: 'left', detail: LEFT_ALONE };
    }
  } catch (error) {
    if (isGone(error)) return { status: 'gone', detail: 'already gone' };
    return { status: 'failed', detail: `FAILED: ${errorText(error)}` };
  }
}
