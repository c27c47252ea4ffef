import { Aws, Fn, Validations, type CfnCondition } from 'aws-cdk-lib';
import { Policy, PolicyStatement, type CfnPolicy, type IRole } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';

function arn(service: string, resource: string): string {
  return `arn:${Aws.PARTITION}:${service}:${Aws.REGION}:${Aws.ACCOUNT_ID}:${resource}`;
}

/** A policy that exists only when `condition` holds (an optional deploy parameter is set). */
function conditionalPolicy(scope: Construct, id: string, role: IRole, condition: CfnCondition, statement: PolicyStatement): Policy {
  const policy = new Policy(scope, id, { roles: [role], statements: [statement] });
  (policy.node.defaultChild as CfnPolicy).cfnOptions.condition = condition;
  return policy;
}

/**
 * ses:SendEmail from the sender address only, with the stack's configuration set. SES authorizes a send against
 * the identity that is verified (the address itself or its domain) and the configuration set used, so those
 * three ARNs are granted. In the SES sandbox it also authorizes the send against each recipient's identity
 * (verified addresses are all a sandboxed account may send to): a second statement grants every identity of the
 * account, but only for e-mails whose From is the sender address, so it lets the deliver function send to the
 * verified recipients and never from any other identity.
 */
export function grantSendEmail(role: IRole, sender: { address: string; configurationSetArn: string }): void {
  const domain = Fn.select(1, Fn.split('@', sender.address));
  role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['ses:SendEmail'],
      resources: [arn('ses', `identity/${sender.address}`), arn('ses', `identity/${domain}`), sender.configurationSetArn],
    }),
  );
  role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['ses:SendEmail'],
      resources: [arn('ses', 'identity/*')],
      conditions: { StringEquals: { [SES_FROM_ADDRESS_KEY]: sender.address } },
    }),
  );
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
    reason:
      "In the SES sandbox, SES authorizes a send against each recipient's verified identity too; the grant holds only for e-mails " +
      "whose From is the stack's sender address (condition ses:FromAddress), so no other identity can be sent from.",
  });
}

/** The IAM condition key SES matches against a send's From address. */
export const SES_FROM_ADDRESS_KEY = 'ses:FromAddress';

/**
 * ses:GetAccount, for the deliver function to read the account's 24-hour sending quota. GetAccount supports no
 * resource-level permission; it reads the account's quota and settings, never a recipient or a message.
 */
export function grantReadSendQuota(role: IRole): void {
  role.addToPrincipalPolicy(new PolicyStatement({ actions: ['ses:GetAccount'], resources: ['*'] }));
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: "ses:GetAccount supports no resource-level permission; the deliver function reads the account's sending quota with it.",
  });
}

type PushEndpointAction = 'sns:Publish' | 'sns:DeleteEndpoint' | 'sns:GetEndpointAttributes' | 'sns:SetEndpointAttributes';

/**
 * Publishing to, deleting, reading and re-owning SNS mobile push endpoints. Endpoints are created at run time,
 * one per registered device, so their ARNs are known only as a pattern under this account and region.
 */
export function grantPushEndpoints(role: IRole, actions: PushEndpointAction[]): void {
  const statement = new PolicyStatement({ actions, resources: [arn('sns', 'endpoint/*')] });
  role.addToPrincipalPolicy(statement);
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sns:<AWS::Region>:<AWS::AccountId>:endpoint/*]',
    reason:
      'SNS mobile push endpoints are created at run time for each registered device; their ARNs exist only under ' +
      'endpoint/<platform>/<application>/<uuid> of this account and region, which is all this grants.',
  });
}

/** sns:CreatePlatformEndpoint on each configured platform application (FCM, APNs), and only those. */
export function grantCreatePlatformEndpoint(
  scope: Construct,
  role: IRole,
  applications: { id: string; arn: string; condition: CfnCondition }[],
): void {
  for (const application of applications) {
    conditionalPolicy(
      scope,
      `${application.id}EndpointRegistration`,
      role,
      application.condition,
      new PolicyStatement({ actions: ['sns:CreatePlatformEndpoint'], resources: [application.arn] }),
    );
  }
}

/**
 * cloudwatch:GetMetricStatistics, for the sweep to read the input queue's ApproximateAgeOfOldestMessage
 * (SQS has no API for it). CloudWatch grants metric reads on no narrower resource than "*", and reading
 * metrics reveals no data of any tenant.
 */
export function grantReadQueueAge(role: IRole): void {
  role.addToPrincipalPolicy(new PolicyStatement({ actions: ['cloudwatch:GetMetricStatistics'], resources: ['*'] }));
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'cloudwatch:GetMetricStatistics supports no resource-level permission; the sweep reads one SQS metric with it.',
  });
}

/**
 * geo-places:Geocode on Amazon Location's own place index (the Places API v2 works on AWS-provided data: its
 * resource is `provider/default` of the region, with no account), for address rules written without coordinates.
 */
export function grantGeocode(role: IRole): void {
  role.addToPrincipalPolicy(
    new PolicyStatement({ actions: ['geo-places:Geocode'], resources: [`arn:${Aws.PARTITION}:geo-places:${Aws.REGION}::provider/default`] }),
  );
}
