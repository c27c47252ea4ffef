/**
 * Run by console.test.ts as its own process (`tsx`), as `npm start` runs: applies the local function
 * environment, loads the functions' logger and metrics, and runs two small handlers with the functions'
 * middleware as overlapping invocations through the local runtime's invoke. Its stdout is what a user sees.
 */
import middy from '@middy/core';
import { applyLocalFunctionEnvironment } from '../../../infra/local/function-environment';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  applyLocalFunctionEnvironment(process.argv.includes('--verbose'), false);
  const { logger, loggerContext } = await import('../../../shared/observability/logger');
  const { metrics } = await import('../../../shared/observability/metrics');
  const { logMetrics } = await import('@aws-lambda-powertools/metrics/middleware');
  const { invoke, useInvocationScopes } = await import('../../../infra/local/invocation');
  const { lambdaContext } = await import('../../../infra/local/sqs-poller');
  await useInvocationScopes();
  const handler = (name: string, ms: number) =>
    middy(async () => {
      logger.info(`${name} info`);
      logger.warn(`${name} warning`);
      await sleep(ms);
      logger.error(`${name} line`);
    })
      .use(loggerContext())
      .use(logMetrics(metrics));
  const run = (name: string, ms: number) => {
    const context = lambdaContext(`fleetwatch-${name}`);
    const fn = handler(name, ms);
    return invoke(context, () => fn({}, context));
  };
  await Promise.all([run('sweep', 40), run('project', 10), run('sweep', 25), run('project', 5)]);
}

void main();
