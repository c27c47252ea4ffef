import { basename, join } from 'node:path';
import { AssetHashType, type Duration } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, Architecture, Code, Function as LambdaFunction, LoggingFormat, Runtime, SystemLogLevel } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PackageBundling, type PackageCopy, type SdkSource } from '../bundling/bundle';

/** The Lambda entry points, each at `functions/<name>/handler.ts` exporting `handler`. */
export type FunctionName = 'evaluate' | 'sweep' | 'deliver' | 'api' | 'telegram' | 'project';

export const METRICS_NAMESPACE = 'fleetwatch';

/** Most JavaScript a function's package may hold (its entry and chunks): what a cold start loads is parsed in full. */
export const BUNDLE_BUDGET_BYTES = 1_000_000;
/** The api's is lower: an integrator's first request after idle waits for its cold start. */
export const API_BUNDLE_BUDGET_BYTES = 700_000;
export const bundleBudget = (name: FunctionName): number => (name === 'api' ? API_BUNDLE_BUDGET_BYTES : BUNDLE_BUDGET_BYTES);
/**
 * Where each function's SDK clients come from (SdkSource). The api's budget has no room for the DynamoDB client
 * (about 430 KB more, 230 KB of it loaded at each cold start): it takes the runtime's.
 */
export const sdkSource = (name: FunctionName): SdkSource => (name === 'api' ? 'runtime' : 'bundled');

/** Where the deliver function finds its notification templates inside the deployment package. */
export const BUNDLED_TEMPLATES_DIR = '/var/task/templates';

/** Where a function that checks phone numbers finds the numbering plan inside the deployment package. */
export const BUNDLED_PHONE_PLAN_FILE = '/var/task/phone-plan.json';

export interface FleetwatchFunctionProps {
  name: FunctionName;
  description: string;
  /** Repository root: holds `functions/`, `shared/` and `package-lock.json`. */
  projectRoot: string;
  timeout: Duration;
  memorySize: number;
  environment?: Record<string, string>;
  /** Copy `shared/templates` next to the bundle and point `TEMPLATES_DIR` at it. */
  withTemplates?: boolean;
  /** Copy libphonenumber-js's mobile numbering plan next to the bundle and point `PHONE_PLAN_FILE` at it. */
  withPhonePlan?: boolean;
  /** Retries of asynchronous invocations (the schedule); Lambda's default is 2. */
  asyncRetryAttempts?: number;
  /** Concurrency reserved for the function, which is also its ceiling; none when absent. */
  reservedConcurrency?: number;
}

/** What a function's package holds beside its code, by the props that ask for it. */
function packageCopies(props: FleetwatchFunctionProps): PackageCopy[] {
  return [
    ...(props.withTemplates ? [{ from: join('shared', 'templates'), to: basename(BUNDLED_TEMPLATES_DIR) }] : []),
    ...(props.withPhonePlan
      ? [{ from: join('node_modules', 'libphonenumber-js', 'metadata.mobile.json'), to: basename(BUNDLED_PHONE_PLAN_FILE) }]
      : []),
  ];
}

/**
 * A fleetwatch Lambda: Node.js 24 on arm64, bundled locally by esbuild as ESM with source maps and the SDK clients
 * its cold start needs (infra/bundling/bundle.ts), logging JSON (application INFO, platform WARN) to its own log group
 * with bounded retention, and running under its own role that starts with nothing but the right to write to that log
 * group (grants are added per function).
 */
export class FleetwatchFunction extends Construct {
  readonly function: LambdaFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: FleetwatchFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `fleetwatch ${props.name} function`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new LambdaFunction(this, 'Function', {
      description: props.description,
      handler: 'index.handler',
      code: Code.fromAsset(props.projectRoot, {
        assetHashType: AssetHashType.OUTPUT,
        bundling: new PackageBundling(join('functions', props.name, 'handler.ts'), sdkSource(props.name), packageCopies(props), props.projectRoot),
      }),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      // JSON logs with the platform's START/END/REPORT lines dropped (they repeat what the Duration and
      // Invocations metrics say, and are about a third of what the evaluate function would log)
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      systemLogLevelV2: SystemLogLevel.WARN,
      ...(props.asyncRetryAttempts === undefined ? {} : { retryAttempts: props.asyncRetryAttempts }),
      ...(props.reservedConcurrency === undefined ? {} : { reservedConcurrentExecutions: props.reservedConcurrency }),
      environment: {
        POWERTOOLS_SERVICE_NAME: `fleetwatch-${props.name}`,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        NODE_OPTIONS: '--enable-source-maps',
        ...(props.withTemplates ? { TEMPLATES_DIR: BUNDLED_TEMPLATES_DIR } : {}),
        ...(props.withPhonePlan ? { PHONE_PLAN_FILE: BUNDLED_PHONE_PLAN_FILE } : {}),
        ...props.environment,
      },
    });
  }
}
