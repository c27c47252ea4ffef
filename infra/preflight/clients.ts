import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { GeoPlacesClient } from '@aws-sdk/client-geo-places';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { STSClient } from '@aws-sdk/client-sts';

export interface PreflightClients {
  sts: STSClient;
  cloudFormation: CloudFormationClient;
  sesv2: SESv2Client;
  lambda: LambdaClient;
  geoPlaces: GeoPlacesClient;
  secretsManager: SecretsManagerClient;
  sms: PinpointSMSVoiceV2Client;
}

/** Where the checks look: unset, the SDK's own chain decides (AWS_REGION, AWS_PROFILE, the default profile). */
export interface AwsTarget {
  region?: string;
  profile?: string;
}

export function preflightClients({ region, profile }: AwsTarget): PreflightClients {
  const config = { ...(region ? { region } : {}), ...(profile ? { profile } : {}) };
  return {
    sts: new STSClient(config),
    cloudFormation: new CloudFormationClient(config),
    sesv2: new SESv2Client(config),
    lambda: new LambdaClient(config),
    geoPlaces: new GeoPlacesClient(config),
    secretsManager: new SecretsManagerClient(config),
    sms: new PinpointSMSVoiceV2Client(config),
  };
}

/** An `aws` CLI command that runs against the same account and region as the checks. */
export function awsCommand({ region, profile }: AwsTarget, command: string): string {
  return `aws ${command}${profile ? ` --profile ${profile}` : ''}${region ? ` --region ${region}` : ''}`;
}
