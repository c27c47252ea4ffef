import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SnsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { ConfigurationSet, EmailSendingEvent, EventDestination } from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { KEY_DELETION_WINDOW_DAYS } from '../stack-facts';

export interface SesFeedbackProps {
  /** The function that suppresses addresses (the deliver function). */
  consumer: IFunction;
}

/**
 * The SES configuration set every alert e-mail is sent with. Its event destination publishes permanent bounces
 * and complaints to an encrypted SNS topic that feeds the deliver function, which suppresses those addresses.
 */
export class SesFeedback extends Construct {
  readonly configurationSet: ConfigurationSet;
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: SesFeedbackProps) {
    super(scope, id);
    // deleted with the stack (after KMS's waiting period) rather than retained: a retained key bills every month
    const key = new Key(this, 'EventsKey', {
      description: 'fleetwatch SES bounce and complaint events',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(KEY_DELETION_WINDOW_DAYS),
    });
    key.grant(new ServicePrincipal('ses.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'Events', { displayName: 'fleetwatch SES bounces and complaints', masterKey: key, enforceSSL: true });
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', {});
    this.configurationSet.addEventDestination('BouncesAndComplaints', {
      destination: EventDestination.snsTopic(this.topic),
      events: [EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT],
    });
    props.consumer.addEventSource(new SnsEventSource(this.topic));
  }

  /** The configuration set's ARN, for ses:SendEmail. */
  get configurationSetArn(): string {
    return `arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:configuration-set/${this.configurationSet.configurationSetName}`;
  }
}
