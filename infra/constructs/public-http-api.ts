import { Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpStage, LogGroupLogDestination, type CfnStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { API_BASE_PATH, apiUrlOf, TELEGRAM_WEBHOOK_PATH, telegramWebhookUrlOf } from '../stack-facts';

export interface PublicHttpApiProps {
  api: IFunction;
  telegram: IFunction;
}

/** Requests per second (and burst) of the API routes together, and of the Telegram webhook on its own. */
export const API_THROTTLE = { rateLimit: 100, burstLimit: 200 } as const;
export const TELEGRAM_WEBHOOK_THROTTLE = { rateLimit: 30, burstLimit: 60 } as const;

/** One JSON line per request. Request and response bodies and headers (X-Auth, Telegram's secret) are never logged. */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    routeKey: '$context.routeKey',
    path: '$context.path',
    status: '$context.status',
    responseLength: '$context.responseLength',
    latencyMs: '$context.responseLatency',
    integrationLatencyMs: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);

/**
 * The HTTP API: the fleetwatch API under /api/v3 and the Telegram webhook. Both authenticate inside their
 * functions (session tokens in X-Auth, as the platform API prescribes; Telegram's secret token header),
 * so API Gateway does no authorization of its own. Access logs go to a dedicated log group.
 */
export class PublicHttpApi extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: PublicHttpApiProps) {
    super(scope, id);
    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'fleetwatch notification API and Telegram webhook',
      createDefaultStage: false,
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.THREE_MONTHS });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: { destination: new LogGroupLogDestination(this.accessLogs), format: ACCESS_LOG_FORMAT },
      // A ceiling for the whole API; per-session pacing is enforced by the api function itself.
      throttle: API_THROTTLE,
    });

    const apiIntegration = new HttpLambdaIntegration('ApiIntegration', props.api);
    this.httpApi.addRoutes({ path: `/${API_BASE_PATH}/{proxy+}`, methods: [HttpMethod.ANY], integration: apiIntegration });
    this.httpApi.addRoutes({ path: `/${API_BASE_PATH}/openapi.json`, methods: [HttpMethod.GET], integration: apiIntegration });
    this.httpApi.addRoutes({
      path: `/${TELEGRAM_WEBHOOK_PATH}`,
      methods: [HttpMethod.POST],
      integration: new HttpLambdaIntegration('TelegramIntegration', props.telegram),
    });

    // The webhook has its own throttle, apart from the API's default: API load cannot block chat linking.
    // (RouteSettings is untyped in CloudFormation terms, so its keys are written as CloudFormation spells them.)
    (this.stage.node.defaultChild as CfnStage).routeSettings = {
      [`POST /${TELEGRAM_WEBHOOK_PATH}`]: {
        ThrottlingRateLimit: TELEGRAM_WEBHOOK_THROTTLE.rateLimit,
        ThrottlingBurstLimit: TELEGRAM_WEBHOOK_THROTTLE.burstLimit,
      },
    };

    Validations.of(this.httpApi).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Authorization is done by the functions: /api/v3 routes check the session token in the X-Auth header as the platform API ' +
        'prescribes (the login route itself must be reachable without one, and openapi.json is public documentation); ' +
        'the Telegram webhook checks the X-Telegram-Bot-Api-Secret-Token header against the generated webhook secret.',
    });
  }

  /** Base URL of the fleetwatch API, ending in `/api/v3` (infra/stack-facts.ts). */
  get apiUrl(): string {
    return apiUrlOf(this.stage.url);
  }

  /** The URL to register with Telegram's setWebhook. */
  get telegramWebhookUrl(): string {
    return telegramWebhookUrlOf(this.stage.url);
  }
}
