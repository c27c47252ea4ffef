import { startEmulators, type Emulators } from '../../infra/local/emulators';

/** Starts the emulators for one test file with its own table and queue names. */
export async function startTestEmulators(name: string): Promise<Emulators> {
  return startEmulators({ prefix: `t-${name}-${process.pid}` });
}

export interface SentEmail {
  messageId: string;
  from: string;
  destination: { to: string[]; cc: string[]; bcc: string[] };
  subject: string;
  body: { html?: string; text?: string };
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
