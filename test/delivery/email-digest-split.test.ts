import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSweepHandler } from '../../functions/sweep/handler';
import { sesClient } from '../../shared/aws/ses';
import { DEFAULT_EMAIL_DIGEST_INTERVAL_MINUTES } from '../../shared/config';
import { enqueueDeliveries } from '../../shared/queues/enqueue-deliveries';
import { useDeliverHarness } from '../support/deliver-harness';
import { sentEmails } from '../support/emulators';
import { SesQuotaStub } from './support/ses-quota-stub';
import { getAlertItem, putAlert, putRule, putUser } from './support/fixtures';

const INTERVAL_MS = DEFAULT_EMAIL_DIGEST_INTERVAL_MINUTES * 60_000;
/** The sweep's schedule: every minute. */
const SWEEP_MS = 60_000;
const ALERTS = 201;

/**
 * A digest lists at most 200 alerts; what does not fit goes in the next one, at the next sweep. On the real
 * deliver and sweep handlers, with DynamoDB Local, fauxqs and aws-ses-v2-local: only GetAccount is stubbed
 * (SesQuotaStub), since no emulator has SES quotas. The clock is the test's, so the digest interval passes at once.
 */
const ses = new SesQuotaStub();
let now = Date.parse('2026-03-02T08:00:00.000Z');
const clock = () => now;
const harness = useDeliverHarness({ name: 'email-digest-split', dependencies: { clock } });
const sweep = createSweepHandler({ clock, readBacklog: async () => ({ kind: 'unmonitored' }) });

beforeAll(async () => {
  ses.install(await sesClient());
});
afterAll(async () => {
  ses.uninstall(await sesClient());
});

async function drain(): Promise<void> {
  await harness.drainDeliveries();
}

async function runSweepAt(at: number): Promise<void> {
  now = at;
  await sweep({}, {} as never);
  await drain();
}

/** The speeds each digest e-mail lists, one per numbered entry, and the entries' numbers. */
function entriesOf(text: string, vehicleId: number): { numbers: number[]; speeds: number[] } {
  // each entry is its alert's subject, severity mark included
  const entries = [...text.matchAll(new RegExp(`^(\\d+)\\. \\[WARNING\\] Vehicle ${vehicleId}: speeding, (\\d+) km/h$`, 'gm'))];
  return { numbers: entries.map((entry) => Number(entry[1])), speeds: entries.map((entry) => Number(entry[2])) };
}

it('splits 201 alerts held for one recipient into a digest of 200 and one of 1 at the next sweep, listing each alert once', async () => {
  const clientId = randomUUID();
  const user = await putUser({ parentId: clientId, login: 'split', email: 'split@example.com' });
  const rule = await putRule({ parentId: clientId, userId: user.id, recipientIds: [user.id], toEmail: true });
  const vehicleId = 9201;
  const speeds = Array.from({ length: ALERTS }, (_, index) => 100 + index);
  const alerts = await Promise.all(speeds.map((speed) => putAlert(rule, vehicleId, { speed })));
  const alertIds = alerts.map((alert) => alert.alertId);

  // near the daily limit, the deliver function holds each alert's e-mail for the recipient's digest
  ses.used(92);
  const start = now;
  expect((await enqueueDeliveries(alertIds)).size).toBe(ALERTS);
  await drain();
  const inbox = async () => (await sentEmails(harness.emulators)).filter((email) => email.destination.to.includes(user.email));
  const emailStatus = async (alertId: string) =>
    ((await getAlertItem(alertId)).deliveries as Record<string, { status: string }>)[`email:${user.email}`]?.status;
  expect(await inbox()).toEqual([]);
  for (const alertId of alertIds) expect(await emailStatus(alertId)).toBe('digest');

  // the digest falls due an interval after the first held e-mail: it lists the first 200
  await runSweepAt(start + INTERVAL_MS + 1000);
  const [first, ...none] = await inbox();
  expect(none).toEqual([]);
  expect(first!.subject).toBe('fleetwatch: 200 alerts in one e-mail');
  const firstEntries = entriesOf(first!.body.text ?? '', vehicleId);
  expect(firstEntries.numbers).toEqual(Array.from({ length: 200 }, (_, index) => index + 1));

  // the one left over goes at the next sweep, not an interval later
  await runSweepAt(now + SWEEP_MS);
  const emails = await inbox();
  expect(emails).toHaveLength(2);
  const second = emails[1]!;
  expect(second.subject).toBe('fleetwatch: 1 alert in one e-mail');
  const secondEntries = entriesOf(second.body.text ?? '', vehicleId);
  expect(secondEntries.numbers).toEqual([1]);

  // every alert listed exactly once across both, and recorded sent
  expect([...firstEntries.speeds, ...secondEntries.speeds].sort((a, b) => a - b)).toEqual(speeds);
  for (const alertId of alertIds) expect(await emailStatus(alertId)).toBe('sent');

  // nothing is left to send
  await runSweepAt(now + 2 * INTERVAL_MS);
  expect(await inbox()).toHaveLength(2);
});
