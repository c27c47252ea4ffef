import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

export interface CleanupClients {
  cloudFormation: CloudFormationClient;
  tagging: ResourceGroupsTaggingAPIClient;
  dynamodb: DynamoDBClient;
  logs: CloudWatchLogsClient;
  kms: KMSClient;
  secretsManager: SecretsManagerClient;
}

/** Where the cleanup looks: unset, the SDK's own chain decides (AWS_REGION, AWS_PROFILE, the default profile). */
export interface AwsTarget {
  region?: string;
  profile?: string;
}

export function cleanupClients({ region, profile }: AwsTarget): CleanupClients {
  const config = { ...(region ? { region } : {}), ...(profile ? { profile } : {}) };
  return {
    cloudFormation: new CloudFormationClient(config),
    tagging: new ResourceGroupsTaggingAPIClient(config),
    dynamodb: new DynamoDBClient(config),
    logs: new CloudWatchLogsClient(config),
    kms: new KMSClient(config),
    secretsManager: new SecretsManagerClient(config),
  };
}
