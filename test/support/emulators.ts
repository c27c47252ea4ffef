import { inject } from 'vitest';
import { startEmulators, type Emulators } from '../../infra/local/emulators';

export const NEEDS_EMULATORS = 'this test needs the emulators: it belongs to npm test, not test:unit';

/** The DynamoDB Local that the test run's global setup started (`npm test`; the unit ring starts none). */
export function sharedDynamoEndpoint(): string {
  const endpoint = inject('dynamoEndpoint') as string | undefined;
  if (endpoint === undefined) throw new Error(NEEDS_EMULATORS);
  return endpoint;
}

/**
 * Starts the emulators for one test file with its own table and queue names: SES and SQS of its own, and its
 * own tables in the run's shared DynamoDB Local.
 */
export async function startTestEmulators(name: string): Promise<Emulators> {
  // test clocks run in 2026's past: DynamoDB Local's time to live would delete their sessions and alerts
  const emulators = await startEmulators({ prefix: `t-${name}-${process.pid}`, dynamoEndpoint: sharedDynamoEndpoint(), timeToLive: false });
  // aws-ses-v2-local keeps one inbox per process, and a worker runs file after file: each starts with it empty
  await clearSentEmails(emulators);
  return emulators;
}
export interface SentEmail {
  messageId: string;
  from: string;
  destination: { to: string[]; cc: string[]; bcc: string[] };
  subject: string;
  body: { html?: string; text?: string };
  /** Headers given to SES besides the usual ones, such as List-Unsubscribe. */
  headers?: { name: string; value: string }[];
  at: number;
}

/** Reads what aws-ses-v2-local received, through its HTTP store, as a person's inbox would show it. */
export async function sentEmails(emulators: Emulators): Promise<SentEmail[]> {
  const response = await fetch(`${emulators.sesEndpoint}/store`);
  const store = (await response.json()) as { emails: SentEmail[] };
  return store.emails;
}

export async function clearSentEmails(emulators: Emulators): Promise<void> {
  await fetch(`${emulators.sesEndpoint}/clear-store`, { method: 'POST' });
}
