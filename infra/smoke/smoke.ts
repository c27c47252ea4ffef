import { ApiClient, type Fetch } from './api-client';
import { realClock, type Clock } from './clock';
import { errorLine, StepFailure } from './failure';
import {
  checkSession,
  createRule,
  deleteRule,
  firstVisibleVehicle,
  logIn,
  openApiDocument,
  readHistory,
  testSend,
  type Caller,
  type Passed,
  type StepContext,
} from './steps';

/**
 * `npm run smoke`: the deploy guide's smoke test, step by step, one line per step. The first failure ends it,
 * named; a rule it created is deleted all the same.
 */

export const STEPS = ['openapi', 'login', 'check', 'vehicle', 'create rule', 'test send', 'history', 'delete rule'] as const;
export type StepName = (typeof STEPS)[number];

export interface SmokeOptions {
  /** The stack's ApiUrl output, as it is (ending in /api/v3). */
  apiUrl: string;
  login: string;
  password: string;
  /** The vehicle the rule watches; the first the user sees when absent. */
  vehicleId?: number;
}

export interface SmokeDeps {
  /** One line of the report, without its line break. */
  print: (line: string) => void;
  fetch?: Fetch;
  clock?: Clock;
  testSendTimeoutMs?: number;
}

export interface StepReport {
  step: StepName;
  ok: boolean;
  /** After `ok`: what it found; after `FAIL`: why. */
  detail: string;
  lines: readonly string[];
}

export interface SmokeResult {
  exitCode: 0 | 1;
  steps: StepReport[];
  /** The rule the smoke test created (and deleted, unless its delete step failed). */
  ruleId?: number;
}

const DETAIL_INDENT = ' '.repeat(7);

export function stepLine(report: StepReport): string {
  return report.ok ? `ok   ${report.step} (${report.detail})` : `FAIL ${report.step}: ${report.detail}`;
}

export async function runSmoke(options: SmokeOptions, deps: SmokeDeps): Promise<SmokeResult> {
  const clock = deps.clock ?? realClock;
  const context: StepContext = { api: new ApiClient(options.apiUrl, deps.fetch ?? fetch, clock), clock };
  const steps: StepReport[] = [];

  async function step<T>(name: StepName, run: () => Promise<Passed<T>>): Promise<{ ok: true; value: T } | { ok: false }> {
    let report: StepReport;
    let outcome: { ok: true; value: T } | { ok: false };
    try {
      const passed = await run();
      report = { step: name, ok: true, detail: passed.detail, lines: passed.lines ?? [] };
      outcome = { ok: true, value: passed.value };
    } catch (error) {
      report = { step: name, ok: false, detail: errorLine(error), lines: error instanceof StepFailure ? error.lines : [] };
      outcome = { ok: false };
    }
    steps.push(report);
    deps.print(stepLine(report));
    for (const line of report.lines) deps.print(`${DETAIL_INDENT}${line}`);
    return outcome;
  }
  const result = (ruleId?: number): SmokeResult => ({
    exitCode: steps.every((report) => report.ok) ? 0 : 1,
    steps,
    ...(ruleId === undefined ? {} : { ruleId }),
  });

  if (!(await step('openapi', () => openApiDocument(context))).ok) return result();
  const token = await step('login', () => logIn(context, options.login, options.password));
  if (!token.ok) return result();
  const caller = await step('check', () => checkSession(context, token.value));
  if (!caller.ok) return result();
  const session: Caller = caller.value;
  let vehicleId = options.vehicleId;
  if (vehicleId === undefined) {
    const found = await step('vehicle', () => firstVisibleVehicle(context, session, options.login));
    if (!found.ok) return result();
    vehicleId = found.value;
  }
  const watched = vehicleId;
  const rule = await step('create rule', () => createRule(context, session, watched));
  if (!rule.ok) return result();

  // after a failure the rule is deleted all the same, so that a failed run leaves nothing behind
  if ((await step('test send', () => testSend(context, session, rule.value, deps.testSendTimeoutMs))).ok) {
    await step('history', () => readHistory(context, session));
  }
  await step('delete rule', () => deleteRule(context, session, rule.value));
  return result(rule.value);
}
