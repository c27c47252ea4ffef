import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SnsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { CfnConfigurationSet } from 'aws-cdk-lib/aws-smsvoice';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { KEY_DELETION_WINDOW_DAYS } from '../stack-facts';

export interface SmsChannelProps {
  /** The function that records SMS outcomes on alerts (the deliver function). */
  consumer: IFunction;
  /** The origination identity's ARN (a phone number, pool or sender id), from CDK context `smsOriginationIdentity`. */
  originationIdentityArn: string;
}

/** The final SMS events the deliver function records on alerts. */
export const SMS_EVENT_TYPES = [
  'TEXT_DELIVERED',
  'TEXT_TTL_EXPIRED',
  'TEXT_BLOCKED',
  'TEXT_CARRIER_UNREACHABLE',
  'TEXT_CARRIER_BLOCKED',
  'TEXT_INVALID',
  'TEXT_INVALID_MESSAGE',
  'TEXT_UNREACHABLE',
  'TEXT_SPAM',
  'TEXT_UNKNOWN',
];

/**
 * AWS End User Messaging SMS for alerts: a configuration set whose event destination publishes the final delivery
 * events to an encrypted SNS topic that feeds the deliver function (as SES's feedback does). Built only when the
 * deployment names SMS countries and an origination identity.
 */
export class SmsChannel extends Construct {
  readonly configurationSet: CfnConfigurationSet;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: SmsChannelProps,
  ) {
    super(scope, id);
    const key = new Key(this, 'EventsKey', {
      description: 'fleetwatch SMS delivery events',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(KEY_DELETION_WINDOW_DAYS),
    });
    key.grant(new ServicePrincipal('sms-voice.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    const topic = new Topic(this, 'SmsEvents', { displayName: 'fleetwatch SMS delivery events', masterKey: key, enforceSSL: true });
    topic.grantPublish(new ServicePrincipal('sms-voice.amazonaws.com'));
    this.configurationSet = new CfnConfigurationSet(this, 'ConfigurationSet', {
      eventDestinations: [
        { eventDestinationName: 'Outcomes', enabled: true, matchingEventTypes: SMS_EVENT_TYPES, snsDestination: { topicArn: topic.topicArn } },
      ],
    });
    props.consumer.addEventSource(new SnsEventSource(topic));
  }

  get configurationSetArn(): string {
    return `arn:${Aws.PARTITION}:sms-voice:${Aws.REGION}:${Aws.ACCOUNT_ID}:configuration-set/${this.configurationSet.ref}`;
  }

  /** Lets `role` send only from the deployment's origination identity, with this configuration set. */
  grantSend(role: IRole): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['sms-voice:SendTextMessage'], resources: [this.props.originationIdentityArn, this.configurationSetArn] }),
    );
  }
}
