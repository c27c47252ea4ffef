import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';
import { exportToFunctions, localAwsConfig } from './start-config';

/**
 * Runs one handler invocation the way the Lambda runtime runs concurrent invocations in one process (Lambda
 * Managed Instances): inside its own InvokeStore context. The functions share one Powertools logger instance
 * here, as every module is loaded once; Powertools keeps the Lambda context and appended keys per invocation
 * in that store, so a line logged by the sweep carries the sweep's function name even while the project or
 * evaluate function runs at the same time.
 */
let store: Promise<InvokeStoreBase> | undefined;

/**
 * Creates the store and tells Powertools to use it. Call once the handler modules are loaded and before any
 * handler runs: Powertools objects built at module load (a BatchProcessor) write to the store only inside an
 * invocation once it is in use. Returns the undo, for the runtime's stop.
 */
export async function useInvocationScopes(): Promise<() => Promise<void>> {
  await (store ??= InvokeStore.getInstanceAsync(true));
  if (localAwsConfig().AWS_LAMBDA_MAX_CONCURRENCY !== undefined) return async () => undefined;
  // the variable the Lambda runtime sets for concurrent invocations: Powertools reads it to scope its state
  exportToFunctions({ AWS_LAMBDA_MAX_CONCURRENCY: '10' });
  return async () => {
    exportToFunctions({ AWS_LAMBDA_MAX_CONCURRENCY: undefined });
  };
}

export async function invoke<T>(context: Context, run: () => Promise<T>): Promise<T> {
  const instance = await (store ??= InvokeStore.getInstanceAsync(true));
  return instance.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId }, run);
}
