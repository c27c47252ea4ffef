import middy from '@middy/core';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { checkFunctionConfig, resourcesConfig } from '../../shared/config';
import { logger, loggerContext } from '../../shared/observability/logger';
import { projectGeozoneChange, projectRuleChange } from '../../shared/pipeline/projection';

/**
 * Fed by the DynamoDB streams of the rules and geozones tables: projects each change onto the items of the
 * vehicles it affects (shared/pipeline/projection.ts). Records are handled one after another, in stream
 * order; the first that fails is reported (ReportBatchItemFailures) and the stream resumes from it.
 */
type Image = Record<string, AttributeValue> | undefined;

/** The table a stream record comes from: `arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>`. */
export function tableOfRecord(record: DynamoDBRecord): string | undefined {
  return /:table\/([^/]+)\/stream\//.exec(record.eventSourceARN ?? '')?.[1];
}

export async function projectRecord(record: DynamoDBRecord): Promise<number> {
  const image = (value: unknown) => (value ? unmarshall(value as NonNullable<Image>) : undefined);
  const oldImage = image(record.dynamodb?.OldImage);
  const newImage = image(record.dynamodb?.NewImage);
  const { RULES_TABLE, GEOZONES_TABLE } = resourcesConfig();
  const table = tableOfRecord(record);
  if (table === RULES_TABLE) return projectRuleChange(oldImage, newImage);
  if (table === GEOZONES_TABLE) return projectGeozoneChange(oldImage, newImage);
  logger.warn('stream record of an unknown table ignored', { eventSourceARN: record.eventSourceARN });
  return 0;
}

export function createProjectHandler() {
  const processor = new BatchProcessor(EventType.DynamoDBStreams);
  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
    .use(loggerContext())
    .handler(async (event, context) =>
      processPartialResponse(event, async (record: DynamoDBRecord) => projectRecord(record), processor, { context, processInParallel: false }),
    );
}

// a missing or malformed setting fails the cold start, naming the variable
checkFunctionConfig('project');

export const handler = createProjectHandler();
