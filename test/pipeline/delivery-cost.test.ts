import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../../infra/local/emulators';
import { sentEmails, startTestEmulators } from '../support/emulators';
import { measureDeliveryCost, type DeliveryCost } from './delivery-cost-scenario';

/** What an alert costs from creation to delivery, with the real evaluate and deliver functions. */
describe('the cost of one alert, created and e-mailed to one recipient', () => {
  const ALERTS = 5;
  let emulators: Emulators;
  let cost: DeliveryCost;
  beforeAll(async () => {
    emulators = await startTestEmulators('pipeline-delivery-cost');
    cost = await measureDeliveryCost({ alerts: ALERTS });
  }, 120_000);
  afterAll(async () => emulators.stop());

  it('raises one alert per vehicle and e-mails each once, in one deliver invocation', async () => {
    expect(cost.alerts).toBe(ALERTS);
    expect(cost.emailsPerAlert).toBe(1);
    expect(await sentEmails(emulators)).toHaveLength(ALERTS);
    expect(cost.deliverInvocationsPerAlert).toBe(1);
  });

  it('counts the alert item, its indexes and the transaction it makes of the vehicle write', () => {
    // the alert item is written in a transaction (twice the units of a lone put), with its index entries
    expect(cost.createWriteUnitsPerAlert).toBeGreaterThanOrEqual(4);
    expect(cost.createReadUnitsPerAlert).toBe(0);
    // the vehicle item (under 1 KB) costs 2 units in the transaction instead of 1 alone
    expect(cost.createVehicleWriteUnitsPerAlert).toBe(1);
  });

  it('counts the writes delivery makes to the alert and the SQS requests on both sides', () => {
    // the lease, the delivery recorded and the settled status: at least one write each way
    expect(cost.deliverWriteUnitsPerAlert).toBeGreaterThanOrEqual(2);
    expect(cost.deliverReadUnitsPerAlert).toBeGreaterThan(0);
    // one SendMessageBatch from evaluate; a receive and a delete from the deliver side
    expect(cost.enqueueRequestsPerAlert).toBe(1);
    expect(cost.deliverSqsRequestsPerAlert).toBeGreaterThanOrEqual(2);
  });
});
