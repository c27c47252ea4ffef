import { Aws, Duration, RemovalPolicy, Stack, type CfnCondition } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnSubscription, Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from './fleetwatch-function';
import type { MessageQueues } from './message-queues';
import { KEY_DELETION_WINDOW_DAYS } from '../stack-facts';

export interface MonitoringProps {
  /** Every function of the stack, by name. */
  functions: Record<string, IFunction>;
  /** Every table of the stack, by name. */
  tables: Record<string, ITable>;
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
/** SES puts an account under review at these rates (bounces 5 %, complaints 0.1 %) and may pause sending above them. */
export const SES_BOUNCE_RATE_REVIEW = 0.05;
export const SES_COMPLAINT_RATE_REVIEW = 0.001;
/**
 * Share of the account's SES 24-hour sending quota used (percent) that pages: time to ask AWS for more, before
 * alert e-mails are merged into digests (EMAIL_DIGEST_AT_PERCENT, default 90) or wait for quota (100).
 */
export const SES_QUOTA_ALARM_PERCENT = 80;

/** What a failed invocation of each function means for the people waiting on alerts. */
const ERROR_MEANING: Record<string, string> = {
  evaluate: 'The evaluate function failed whole invocations: terminal messages are being retried and alerts may be late.',
  deliver: 'The deliver function failed whole invocations: alert notifications are being retried and may be late.',
  sweep: 'The sweep function failed: connection-loss alerts, rule expiry and the outbox re-send are not running.',
  api: 'The api function failed invocations: integrators see 5xx answers. Check its logs.',
  telegram: 'The telegram webhook function failed invocations: Telegram retries the update, chats may not get linked. Check its logs.',
  project:
    'The project function failed on a rules or geozones stream batch: rule and geozone edits are not reaching the vehicles they affect until it succeeds (the stream retries). Check its logs.',
};

const capitalized = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

const ONE_MINUTE = Duration.minutes(1);
const FIVE_MINUTES = Duration.minutes(5);
const ONE_HOUR = Duration.hours(1);

/**
 * A Metrics Insights query over fleetwatch's own metrics. It aggregates across every dimension set, so it
 * does not depend on which default dimensions (such as Powertools' `service`) the functions attach.
 */
function appMetric(metricName: string, label: string, period: Duration, groupBy?: string): MathExpression {
  const query = `SELECT SUM(${metricName}) FROM ${METRICS_NAMESPACE}${groupBy ? ` GROUP BY ${groupBy}` : ''}`;
  return new MathExpression({ expression: query, label, period });
}

/** Read and write requests DynamoDB throttled on one table (on-demand tables throttle too, past their peak). */
function tableThrottles(table: ITable, name: string, label: string, period: Duration): MathExpression {
  // metric ids are unique within a graph that shows several tables
  const id = name.replace(/[^A-Za-z0-9]/g, '').replace(/^./, (first) => first.toLowerCase());
  return new MathExpression({
    expression: `${id}Reads + ${id}Writes`,
    usingMetrics: {
      [`${id}Reads`]: table.metric('ReadThrottleEvents', { period, statistic: 'Sum' }),
      [`${id}Writes`]: table.metric('WriteThrottleEvents', { period, statistic: 'Sum' }),
    },
    label,
    period,
  });
}

/**
 * Alarms for the failures that lose or delay alerts, an encrypted topic they notify, and a dashboard.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.topic = this.alarmTopic(props.alarmEmail);
    this.action = new SnsAction(this.topic);
    this.deadLetterAlarms(props.queues);
    this.functionAlarms(props.functions);
    this.tableAlarms(props.tables);
    this.sesAlarms();
    this.lateAlertAlarms(props.queues, props.apiStage);
    this.feedAlarm();
    this.circuitAlarm();
    this.dashboard = this.operationsDashboard(props);
  }

  /** The encrypted topic the alarms notify, with the operator's address subscribed when one is set. */
  private alarmTopic(alarmEmail: MonitoringProps['alarmEmail']): Topic {
    // CloudWatch can publish to an encrypted topic only through a customer-managed key that allows it.
    const key = new Key(this, 'AlarmTopicKey', {
      description: 'fleetwatch alarm notifications',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(KEY_DELETION_WINDOW_DAYS),
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    const topic = new Topic(this, 'AlarmTopic', { displayName: 'fleetwatch alarms', masterKey: key, enforceSSL: true });
    // The topic policy replaces SNS's default one, so CloudWatch's right to publish is stated: this account's alarms only.
    topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*` },
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        },
      }),
    );
    const subscription = new CfnSubscription(this, 'AlarmEmailSubscription', {
      topicArn: topic.topicArn,
      protocol: 'email',
      endpoint: alarmEmail.address,
    });
    subscription.cfnOptions.condition = alarmEmail.condition;
    return topic;
  }

  private alarm(alarmId: string, description: string, metric: IMetric, threshold: number, periods = 1): Alarm {
    const created = new Alarm(this, alarmId, {
      alarmDescription: description,
      metric,
      threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: periods,
      datapointsToAlarm: periods,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    created.addAlarmAction(this.action);
    created.addOkAction(this.action);
    this.alarms.push(created);
    return created;
  }

  private deadLetterAlarms(queues: MessageQueues): void {
    // A dead-letter queue alarms when messages arrive, and recovers by itself a minute later: an operator who
    // has not purged yet is not paged again, and the next arrival pages anew. Arrivals are counted as the rise
    // of the visible count, because SQS does not count messages moved by a redrive policy as sent.
    const arrivals = (queue: MessageQueues['inputDeadLetters'], label: string) =>
      new MathExpression({
        expression: 'IF(DIFF(visible) > 0, DIFF(visible), 0)',
        usingMetrics: { visible: queue.metricApproximateNumberOfMessagesVisible({ period: ONE_MINUTE, statistic: 'Maximum' }) },
        label,
        period: ONE_MINUTE,
      });
    this.alarm(
      'InputDeadLettersAlarm',
      'New terminal messages reached the input dead-letter queue (malformed, or failed 5 times). Their reason is in the message attributes; `npm run admin -- redrive input` puts them back.',
      arrivals(queues.inputDeadLetters, 'Input DLQ arrivals'),
      1,
    );
    this.alarm(
      'DeliveryDeadLettersAlarm',
      'New delivery requests reached the deliveries dead-letter queue (reason in the message attributes): some alerts were not sent to every channel. Redrive them once the channel works again (`npm run admin -- redrive deliveries`): only what was not sent goes out.',
      arrivals(queues.deliveryDeadLetters, 'Deliveries DLQ arrivals'),
      1,
    );
  }

  private functionAlarms(functions: Record<string, IFunction>): void {
    for (const [name, fn] of Object.entries(functions)) {
      this.alarm(
        `${capitalized(name)}ErrorsAlarm`,
        ERROR_MEANING[name] ?? `The ${name} function failed invocations. Check its logs.`,
        fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
        1,
      );
      this.alarm(
        `${capitalized(name)}ThrottlesAlarm`,
        `Lambda throttled the ${name} function: the account or function concurrency limit is reached, and its work waits.`,
        fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
        1,
      );
    }
  }

  private tableAlarms(tables: Record<string, ITable>): void {
    for (const [name, table] of Object.entries(tables)) {
      this.alarm(
        `${capitalized(name)}TableThrottlesAlarm`,
        `DynamoDB throttled requests to the ${name} table: reads or writes are retried, and alerts or API answers are slower.`,
        tableThrottles(table, name, `${name} throttled requests`, FIVE_MINUTES),
        1,
      );
    }
  }

  private sesAlarms(): void {
    this.alarm(
      'SesBounceRateAlarm',
      `The account's SES bounce rate reached ${SES_BOUNCE_RATE_REVIEW * 100} %, where SES puts sending under review: find the bouncing addresses (deliveryError on alerts) and remove them from rules.`,
      new Metric({ namespace: 'AWS/SES', metricName: 'Reputation.BounceRate', period: ONE_HOUR, statistic: 'Maximum' }),
      SES_BOUNCE_RATE_REVIEW,
    );
    this.alarm(
      'SesComplaintRateAlarm',
      `The account's SES complaint rate reached ${SES_COMPLAINT_RATE_REVIEW * 100} %, where SES puts sending under review: recipients mark alerts as spam; check who receives which rules.`,
      new Metric({ namespace: 'AWS/SES', metricName: 'Reputation.ComplaintRate', period: ONE_HOUR, statistic: 'Maximum' }),
      SES_COMPLAINT_RATE_REVIEW,
    );
    // SES publishes no metric of the daily quota: the deliver function reads it (GetAccount) and publishes the share used
    this.alarm(
      'SesDailyQuotaAlarm',
      `${SES_QUOTA_ALARM_PERCENT} % or more of the account's SES 24-hour sending quota is used: from EMAIL_DIGEST_AT_PERCENT (default 90 %) alert e-mails are merged into one digest per recipient, and at 100 % they wait for the quota to return. Ask AWS for a higher daily quota (docs/operations.md).`,
      new MathExpression({
        expression: `SELECT MAX(SesQuotaUsedPercent) FROM ${METRICS_NAMESPACE}`,
        label: 'SES daily quota used (%)',
        period: FIVE_MINUTES,
      }),
      SES_QUOTA_ALARM_PERCENT,
    );
  }

  /** Late terminal messages, failing sends and API faults. */
  private lateAlertAlarms(queues: MessageQueues, apiStage: HttpStage): void {
    this.alarm(
      'InputBacklogAlarm',
      `The oldest terminal message on the input queue has waited ${INPUT_AGE_THRESHOLD.toMinutes()} minutes or more for 3 minutes: alerts are late.`,
      queues.input.metricApproximateAgeOfOldestMessage({ period: ONE_MINUTE, statistic: 'Maximum' }),
      INPUT_AGE_THRESHOLD.toSeconds(),
      3,
    );
    this.alarm(
      'DeliveryFailuresAlarm',
      `${DELIVERY_FAILURES_THRESHOLD} or more notification sends failed in 5 minutes (any channel): check SES, Telegram and push.`,
      appMetric('DeliveryFailures', 'Delivery failures', FIVE_MINUTES),
      DELIVERY_FAILURES_THRESHOLD,
    );
    this.alarm(
      'ApiServerErrorsAlarm',
      `The HTTP API answered ${API_SERVER_ERRORS_THRESHOLD} or more 5xx in 5 minutes: integrators or the Telegram webhook are failing. Check the api and telegram function logs.`,
      apiStage.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }),
      API_SERVER_ERRORS_THRESHOLD,
    );
  }

  /** The telematics feed stopped, for the platform or a client: the sweep holds the connection losses it would raise. */
  private feedAlarm(): void {
    this.alarm(
      'SmsCapReachedAlarm',
      'A client reached its monthly SMS spend cap: its SMS alerts stop until the month ends (its users were told by e-mail and Telegram). Raise `smsMonthlyCapUsd` if the spend is genuine; a sudden climb can also be SMS pumping. See docs/operations.md.',
      appMetric('SmsCapReached', 'SMS past the cap', FIVE_MINUTES),
      1,
    );
    this.alarm(
      'FeedInterruptedAlarm',
      'Many vehicles fell silent within the same minute (a whole client, or the input rate fell to about nothing): the telematics feed is interrupted. The sweep holds their connection-loss alerts until the feed is back; the `feed interrupted` error of the sweep names the scope. See docs/operations.md.',
      appMetric('FeedOutages', 'Interrupted feeds', ONE_MINUTE),
      1,
    );
  }

  /**
   * A shared destination (the Telegram Bot API, SES or SNS of a region) whose circuit breaker is open: every
   * alert on that channel waits. A webhook endpoint's open circuit does not page: it is its tenant's to fix,
   * who sees it in the endpoint's health; the dashboard shows their count.
   */
  private circuitAlarm(): void {
    this.alarm(
      'OpenCircuitsAlarm',
      'A circuit breaker of a shared destination is open: the Telegram Bot API, SES or SNS failed 5 times in a row, and deliveries on that channel are held (no attempt spent, one probe a minute) until it answers, then drained oldest first. The deliver error `circuit opened` names the destination. See docs/operations.md.',
      new MathExpression({ expression: `SELECT MAX(OpenCircuits) FROM ${METRICS_NAMESPACE}`, label: 'Open circuits', period: FIVE_MINUTES }),
      1,
    );
  }

  /** One row per widget group: alarms, traffic, queues and API, functions, throttles. */
  private operationsDashboard(props: MonitoringProps): Dashboard {
    const dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-operations`,
      defaultInterval: Duration.hours(3),
    });
    dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));
    dashboard.addWidgets(...trafficWidgets(props.queues));
    dashboard.addWidgets(...queueAndApiWidgets(props.queues, props.apiStage));
    dashboard.addWidgets(...functionWidgets(props.functions));
    dashboard.addWidgets(throttlesWidget(props.functions, props.tables), emailQuotaWidget(), circuitsWidget());
    return dashboard;
  }
}

const WIDGET_WIDTH = 8;

function trafficWidgets(queues: MessageQueues): GraphWidget[] {
  return [
    new GraphWidget({
      title: 'Terminal messages',
      width: WIDGET_WIDTH,
      // taken and deleted is the queue's count, which costs no log bytes; the function counts rejections only
      left: [
        queues.input.metricNumberOfMessagesDeleted({ label: 'Processed', period: ONE_MINUTE, statistic: 'Sum' }),
        appMetric('MessagesRejected', 'Rejected (to DLQ)', ONE_MINUTE),
      ],
    }),
    new GraphWidget({ title: 'Alerts raised', width: WIDGET_WIDTH, left: [appMetric('AlertsRaised', 'Alerts', ONE_MINUTE)] }),
    new GraphWidget({
      title: 'Deliveries by channel',
      width: WIDGET_WIDTH,
      left: [appMetric('DeliveriesSent', 'Sent', ONE_MINUTE, 'channel')],
      right: [appMetric('DeliveryFailures', 'Failed', ONE_MINUTE, 'channel')],
    }),
  ];
}

function queueAndApiWidgets(queues: MessageQueues, apiStage: HttpStage): GraphWidget[] {
  return [
    new GraphWidget({
      title: 'Queue depth',
      width: WIDGET_WIDTH,
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
      width: WIDGET_WIDTH,
      left: [
        queues.input.metricApproximateAgeOfOldestMessage({ label: 'Input', period: ONE_MINUTE, statistic: 'Maximum' }),
        queues.deliveries.metricApproximateAgeOfOldestMessage({ label: 'Deliveries', period: ONE_MINUTE, statistic: 'Maximum' }),
      ],
    }),
    new GraphWidget({
      title: 'API responses',
      width: WIDGET_WIDTH,
      left: [
        apiStage.metricCount({ label: 'Requests', period: ONE_MINUTE }),
        apiStage.metricClientError({ label: '4xx', period: ONE_MINUTE }),
        apiStage.metricServerError({ label: '5xx', period: ONE_MINUTE }),
      ],
    }),
  ];
}

function functionWidgets(functions: Record<string, IFunction>): GraphWidget[] {
  const fns = Object.entries(functions);
  return [
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
  ];
}

/** The SES daily quota the deliver functions read, and the e-mails it made wait for a digest. */
function emailQuotaWidget(): GraphWidget {
  return new GraphWidget({
    title: 'SES daily quota',
    width: WIDGET_WIDTH,
    left: [new MathExpression({ expression: `SELECT MAX(SesQuotaUsedPercent) FROM ${METRICS_NAMESPACE}`, label: 'Used (%)', period: FIVE_MINUTES })],
    leftYAxis: { min: 0, max: 100 },
    right: [appMetric('EmailsHeldForDigest', 'E-mails held for a digest', FIVE_MINUTES)],
  });
}

/** Open circuits as the sweep counts them (left), and circuits opening and closing (right). */
function circuitsWidget(): GraphWidget {
  return new GraphWidget({
    title: 'Circuit breakers',
    width: WIDGET_WIDTH,
    left: [
      new MathExpression({ expression: `SELECT MAX(OpenCircuits) FROM ${METRICS_NAMESPACE}`, label: 'Open: Telegram, SES, SNS', period: ONE_MINUTE }),
      new MathExpression({
        expression: `SELECT MAX(OpenWebhookCircuits) FROM ${METRICS_NAMESPACE}`,
        label: 'Open: webhook endpoints',
        period: ONE_MINUTE,
      }),
    ],
    right: [appMetric('CircuitsOpened', 'Opened', FIVE_MINUTES), appMetric('CircuitsClosed', 'Closed', FIVE_MINUTES)],
  });
}

function throttlesWidget(functions: Record<string, IFunction>, tables: Record<string, ITable>): GraphWidget {
  return new GraphWidget({
    title: 'Throttled: Lambda invocations (left), DynamoDB requests (right)',
    width: 24,
    left: Object.entries(functions).map(([name, fn]) => fn.metricThrottles({ label: name, period: ONE_MINUTE, statistic: 'Sum' })),
    right: Object.entries(tables).map(([name, table]) => tableThrottles(table, name, name, ONE_MINUTE)),
  });
}
