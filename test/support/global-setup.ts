import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The one DynamoDB Local of this test run; each test file keeps to tables of its own prefix. */
    dynamoEndpoint: string;
  }
}

/** One DynamoDB Local (a JVM) for the whole run instead of one per test file. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dynamo = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
