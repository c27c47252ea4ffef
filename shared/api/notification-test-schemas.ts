import * as z from 'zod';
import { testTargetOutcomeSchema } from '../schemas/test-send';
import { idParamsSchema } from './schemas';

/** Path of one test alert of a rule. */
export const testParamsSchema = idParamsSchema.extend({ testId: z.uuid().describe('the id `testNotification` answered') });

/** A rule's test alert: pending until the deliver function has sent it, then one outcome per target. */
export const testResultSchema = z.object({
  testId: z.uuid(),
  ruleId: z.number().int(),
  status: z.enum(['pending', 'done']).describe('pending: not sent yet, ask again in a second; done: `targets` holds every outcome'),
  finishedAt: z.string().optional().describe('when the test was sent (ISO 8601, UTC); only when done'),
  targets: z
    .array(testTargetOutcomeSchema)
    .describe(
      'one entry per target the rule names: sent; notLinked (a Telegram chat no user of the owner’s scope linked, or that sent /stop); ' +
        'notConfirmed (a side address that has not confirmed: it gets no test, and no confirmation link either); unsubscribed; suppressed; ' +
        'failed (with the reason)',
    ),
});
