import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../aws/dynamodb';
import { emailConsentKeys } from '../keys';
import { normal, table } from './address';

/** Addresses that bounced or complained (SES events, `SUPPRESSED#…`): nothing is sent to them any more. */
export const suppressedKey = (address: string) => emailConsentKeys.suppressed(normal(address));

/** An address that bounced permanently or complained: nothing more is sent to it. */
export async function suppressAddress(address: string, reason: string, now: number): Promise<void> {
  await documentClient().send(new PutCommand({ TableName: table(), Item: { ...suppressedKey(address), reason, at: new Date(now).toISOString() } }));
}
