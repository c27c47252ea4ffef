import { basename, join } from 'node:path';
import type { Duration } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, Architecture, LoggingFormat, Runtime, SystemLogLevel } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The Lambda entry points, each at `functions/<name>/handler.ts` exporting `handler`. */
export type FunctionName = 'evaluate' | 'sweep' | 'deliver' | 'api' | 'telegram' | 'project';

export const METRICS_NAMESPACE = 'fleetwatch';

/** Largest bundle a function may have: every byte is parsed at each cold start. */
export const BUNDLE_BUDGET_BYTES = 1_000_000;
/** The api's is lower: an integrator's first request after idle waits for its cold start. */
export const API_BUNDLE_BUDGET_BYTES = 700_000;
export const bundleBudget = (name: FunctionName): number => (name === 'api' ? API_BUNDLE_BUDGET_BYTES : BUNDLE_BUDGET_BYTES);

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

/**
 * Module aliases of every bundle. grammy's node-fetch reaches for Node's deprecated built-in punycode (DEP0040 at
 * every cold start); the userland package of the same name is what it needs. The same node-fetch imports whatwg-url
 * only as the fallback for a Node.js without `url.URL` (`Url.URL || whatwgUrl.URL`): Node's own url module stands
 * in for it, which keeps whatwg-url's tr46 tables (~290 KB) out of the deliver and telegram bundles.
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = { punycode: 'punycode/', 'whatwg-url': 'node:url' };

/** The runtime the bundles are built for, and where esbuild looks first in a package (its ES module build). */
export const BUNDLE_TARGET = 'node24';
export const BUNDLE_MAIN_FIELDS: readonly string[] = ['module', 'main'];

// esbuild's ESM output has no `require`; CommonJS dependencies bundled into it need one.
const ESM_REQUIRE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/** Copies the files a function reads beside its bundle into its package; `inputDir` is the project root. */
function copyFilesHooks(props: FleetwatchFunctionProps): ICommandHooks | undefined {
  const copies: ((inputDir: string, outputDir: string) => string)[] = [];
  if (props.withTemplates) copies.push((inputDir, outputDir) => `cp -R "${join(inputDir, 'shared', 'templates')}" "${join(outputDir, 'templates')}"`);
  if (props.withPhonePlan) {
    copies.push(
      (inputDir, outputDir) =>
        `cp "${join(inputDir, 'node_modules', 'libphonenumber-js', 'metadata.mobile.json')}" "${join(outputDir, basename(BUNDLED_PHONE_PLAN_FILE))}"`,
    );
  }
  if (copies.length === 0) return undefined;
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir: string, outputDir: string) => copies.map((copy) => copy(inputDir, outputDir)),
  };
}

/**
 * A fleetwatch Lambda: Node.js 24 on arm64, bundled locally by esbuild as ESM with source maps,
 * logging JSON (application INFO, platform WARN) to its own log group with bounded retention, and running under its own role that starts
 * with nothing but the right to write to that log group (grants are added per function).
 */
export class FleetwatchFunction extends Construct {
  readonly function: NodejsFunction;
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
    const commandHooks = copyFilesHooks(props);

    this.function = new NodejsFunction(this, 'Function', {
      description: props.description,
      entry: join(props.projectRoot, 'functions', props.name, 'handler.ts'),
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: join(props.projectRoot, 'package-lock.json'),
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
      bundling: {
        format: OutputFormat.ESM,
        target: BUNDLE_TARGET,
        esbuildArgs: Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([name, target]) => [`--alias:${name}`, target])),
        mainFields: [...BUNDLE_MAIN_FIELDS],
        banner: ESM_REQUIRE_BANNER,
        minify: true,
        // no keepNames: the source maps name every frame of a stack trace already, and the errors set their own
        // names; keeping them wrapped every function in a call at load and added 4–5% to each bundle
        keepNames: false,
        sourceMap: true,
        sourcesContent: false,
        ...(commandHooks ? { commandHooks } : {}),
      },
    });
  }
}
