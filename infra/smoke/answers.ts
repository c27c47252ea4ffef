import * as z from 'zod';
import type { ApiAnswer } from './api-client';
import { httpFailure, StepFailure } from './failure';

/** The parts of the API's answers the smoke test reads, and nothing more: a field it does not use may change freely. */

export const openApiAnswer = z.object({ info: z.object({ title: z.string(), version: z.string() }) });
export const loginAnswer = z.object({ AuthId: z.string().min(1) });
export const checkAnswer = z.object({ userId: z.string().min(1), parentId: z.string().min(1) });
export const vehiclesAnswer = z.array(z.object({ vehicleId: z.number().int(), name: z.string() }));
export const ruleAnswer = z.object({ id: z.number().int() });
export const testAnswer = z.object({
  testId: z.string().min(1),
  status: z.enum(['pending', 'done']),
  targets: z.array(z.object({ target: z.string(), outcome: z.string(), reason: z.string().optional() })),
});
export const historyAnswer = z.object({ items: z.array(z.unknown()), nextToken: z.string().nullable() });

/** The answer's body when its status is one of `statuses` and it has the expected shape; otherwise the step fails. */
export function expectAnswer<T extends z.ZodType>(answer: ApiAnswer, statuses: readonly number[], schema: T): z.infer<T> {
  if (!statuses.includes(answer.status)) throw new StepFailure(httpFailure(answer));
  const parsed = schema.safeParse(answer.body);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; ');
  throw new StepFailure(`HTTP ${answer.status} but not the expected answer: ${problems}`);
}

/** For answers whose body the smoke test does not read (a delete's "Success"). */
export function expectStatus(answer: ApiAnswer, statuses: readonly number[]): void {
  if (!statuses.includes(answer.status)) throw new StepFailure(httpFailure(answer));
}
