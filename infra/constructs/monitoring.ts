import { Aws, Duration, RemovalPolicy, Stack, type CfnCondition } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnSubscription, Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, type FunctionName } from './fleetwatch-function';
import type { MessageQueues } from './message-queues';

export interface MonitoringProps {
  functions: Record<FunctionName, IFunction>;
  queues: MessageQueues;
  apiStage: HttpStage;
  /** Address to subscribe to the alarm topic, and the condition under which it is set. */
  alarmEmail: { address: string; condition: CfnCondition };
}

/** A message older than this on the input queue means alerts are late. */
export const INPUT_AGE_THRESHOLD = Duration.minutes(2);
/** API server errors in five minutes before anyone is woken: bad input answers 4xx, so any 5xx is a fault. */
export const API_SERVER_ERRORS_THRESHOLD = 5;
/** Failed channel sends in five minutes before anyone is woken: a single blocked bot or bounced address is not an outage. */
export const DELIVERY_FAILURES_THRESHOLD = 5;

const ONE_MINUTE = Duration.minutes(1);
const FIVE_MINUTES = Duration.minutes(5);

/**
 * A Metrics Insights query over fleetwatch's own metrics. It aggregates across every dimension set, so it
 * does not depend on which default dimensions (such as Powertools' `service`) the functions attach.
 */
function appMetric(metricName: string, label: string, period: Duration, groupBy?: string): MathExpression {
  const query = `SELECT SUM(${metricName}) FROM ${METRICS_NAMESPACE}${groupBy ? ` GROUP BY ${groupBy}` : ''}`;
  return new MathExpression({ expression: query, label, period });
}

/**
 * Alarms for the failures that lose or delay alerts, an encrypted topic they notify, and a dashboard.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { functions, queues } = props;

    // CloudWatch can publish to an encrypted topic only through a customer-managed key that allows it.
    const key = new Key(this, 'AlarmTopicKey', {
      description: 'fleetwatch alarm notifications',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'AlarmTopic', { displayName: 'fleetwatch alarms', masterKey: key, enforceSSL: true });
    // The topic policy replaces SNS's default one, so CloudWatch's right to publish is stated: this account's alarms only.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*` },
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        },
      }),
    );
    const subscription = new CfnSubscription(this, 'AlarmEmailSubscription', {
      topicArn: this.topic.topicArn,
      protocol: 'email',
      endpoint: props.alarmEmail.address,
    });
    subscription.cfnOptions.condition = props.alarmEmail.condition;

    const action = new SnsAction(this.topic);
    const alarm = (alarmId: string, description: string, metric: IMetric, threshold: number, periods = 1) => {
      const created = new Alarm(this, alarmId, {
        alarmDescription: description,
        metric,
        threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: periods,
        datapointsToAlarm: periods,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.alarms.push(created);
      return created;
    };

    alarm(
      'InputDeadLettersAlarm',
      'Terminal messages reached the input dead-letter queue (malformed, or failed 5 times). Their reason is in the message attributes.',
      queues.inputDeadLetters.metricApproximateNumberOfMessagesVisible({ period: ONE_MINUTE, statistic: 'Maximum' }),
      1,
    );
    alarm(
      'DeliveryDeadLettersAlarm',
      'Delivery requests reached the deliveries dead-letter queue (reason in the message attributes): some alerts were not sent to every channel. Redrive them once the channel works again: only what was not sent goes out.',
      queues.deliveryDeadLetters.metricApproximateNumberOfMessagesVisible({ period: ONE_MINUTE, statistic: 'Maximum' }),
      1,
    );
    alarm(
      'EvaluateErrorsAlarm',
      'The evaluate function failed whole invocations: terminal messages are being retried and alerts may be late.',
      functions.evaluate.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
      1,
    );
    alarm(
      'DeliverErrorsAlarm',
      'The deliver function failed whole invocations: alert notifications are being retried and may be late.',
      functions.deliver.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
      1,
    );
    alarm(
      'SweepErrorsAlarm',
      'The sweep function failed: connection-loss alerts, rule expiry and the outbox re-send are not running.',
      functions.sweep.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
      1,
    );
    alarm(
      'InputBacklogAlarm',
      `The oldest terminal message on the input queue has waited ${INPUT_AGE_THRESHOLD.toMinutes()} minutes or more for 3 minutes: alerts are late.`,
      queues.input.metricApproximateAgeOfOldestMessage({ period: ONE_MINUTE, statistic: 'Maximum' }),
      INPUT_AGE_THRESHOLD.toSeconds(),
      3,
    );
    alarm(
      'DeliveryFailuresAlarm',
      `${DELIVERY_FAILURES_THRESHOLD} or more notification sends failed in 5 minutes (any channel): check SES, Telegram and push.`,
      appMetric('DeliveryFailures', 'Delivery failures', FIVE_MINUTES),
      DELIVERY_FAILURES_THRESHOLD,
    );
    alarm(
      'ApiServerErrorsAlarm',
      `The HTTP API answered ${API_SERVER_ERRORS_THRESHOLD} or more 5xx in 5 minutes: integrators or the Telegram webhook are failing. Check the api and telegram function logs.`,
      props.apiStage.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }),
      API_SERVER_ERRORS_THRESHOLD,
    );

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-operations`,
      defaultInterval: Duration.hours(3),
    });
    const fns = Object.entries(functions) as [FunctionName, IFunction][];
    const width = 8;
    this.dashboard.addWidgets(
      new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Terminal messages',
        width,
        left: [appMetric('MessagesProcessed', 'Processed', ONE_MINUTE), appMetric('MessagesRejected', 'Rejected (to DLQ)', ONE_MINUTE)],
      }),
      new GraphWidget({ title: 'Alerts raised', width, left: [appMetric('AlertsRaised', 'Alerts', ONE_MINUTE)] }),
      new GraphWidget({
        title: 'Deliveries by channel',
        width,
        left: [appMetric('DeliveriesSent', 'Sent', ONE_MINUTE, 'channel')],
        right: [appMetric('DeliveryFailures', 'Failed', ONE_MINUTE, 'channel')],
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Queue depth',
        width,
        left: [
          queues.input.metricApproximateNumberOfMessagesVisible({ label: 'Input', period: ONE_MINUTE, statistic: 'Maximum' }),
          queues.deliveries.metricApproximateNumberOfMessagesVisible({ label: 'Deliveries', period: ONE_MINUTE, statistic: 'Maximum' }),
        ],
        right: [
          queues.inputDeadLetters.metricApproximateNumberOfMessagesVisible({ label: 'Input DLQ', period: ONE_MINUTE, statistic: 'Maximum' }),
          queues.deliveryDeadLetters.metricApproximateNumberOfMessagesVisible({ label: 'Deliveries DLQ', period: ONE_MINUTE, statistic: 'Maximum' }),
        ],
      }),
      new GraphWidget({
        title: 'Age of oldest message (s)',
        width,
        left: [
          queues.input.metricApproximateAgeOfOldestMessage({ label: 'Input', period: ONE_MINUTE, statistic: 'Maximum' }),
          queues.deliveries.metricApproximateAgeOfOldestMessage({ label: 'Deliveries', period: ONE_MINUTE, statistic: 'Maximum' }),
        ],
      }),
      new GraphWidget({
        title: 'API responses',
        width,
        left: [
          props.apiStage.metricCount({ label: 'Requests', period: ONE_MINUTE }),
          props.apiStage.metricClientError({ label: '4xx', period: ONE_MINUTE }),
          props.apiStage.metricServerError({ label: '5xx', period: ONE_MINUTE }),
        ],
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Function errors',
        width: 12,
        left: fns.map(([name, fn]) => fn.metricErrors({ label: name, period: ONE_MINUTE, statistic: 'Sum' })),
      }),
      new GraphWidget({
        title: 'Function duration p99 (ms)',
        width: 12,
        left: fns.map(([name, fn]) => fn.metricDuration({ label: name, period: ONE_MINUTE, statistic: 'p99' })),
      }),
    );
  }
}
