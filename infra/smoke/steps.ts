import type { ApiClient, ApiRequest } from './api-client';
import {
  checkAnswer,
  expectAnswer,
  expectStatus,
  historyAnswer,
  loginAnswer,
  openApiAnswer,
  ruleAnswer,
  testAnswer,
  vehiclesAnswer,
} from './answers';
import type { Clock } from './clock';
import { httpFailure, StepFailure } from './failure';

/** What each step of the smoke test asks the API, and what it accepts as an answer. */

export const API_TITLE = 'fleetwatch API';
export const PANIC_BUTTON_RULE_TYPE = 6;
export const TEST_SEND_TIMEOUT_MS = 60_000;
const HOUR_MS = 3_600_000;

export interface StepContext {
  api: ApiClient;
  clock: Clock;
}

/** A passed step: what later steps need, and what its `ok` line says. */
export interface Passed<T> {
  value: T;
  detail: string;
  lines?: string[];
}

export interface Caller {
  token: string;
  userId: string;
  parentId: string;
}

/** Ids are long and not secret; their start is enough to tell them apart on the console. */
const short = (id: string) => (id.length > 8 ? `${id.slice(0, 8)}…` : id);

export async function openApiDocument({ api }: StepContext): Promise<Passed<void>> {
  const request: ApiRequest = { method: 'GET', route: '/openapi.json' };
  const answer = await api.send(request);
  // the URL shows what went wrong when --url is not the ApiUrl output as it is (its path doubled, or missing)
  if (answer.status !== 200) throw new StepFailure(`${httpFailure(answer)} (GET ${api.urlOf(request.route)})`);
  const document = expectAnswer(answer, [200], openApiAnswer);
  if (document.info.title !== API_TITLE) {
    throw new StepFailure(`HTTP 200 but info.title is ${JSON.stringify(document.info.title)}, not "${API_TITLE}" (GET ${api.urlOf(request.route)})`);
  }
  return { value: undefined, detail: `${document.info.title} ${document.info.version}` };
}

export async function logIn({ api }: StepContext, login: string, password: string): Promise<Passed<string>> {
  const answer = await api.send({ method: 'POST', route: '/auth/login', body: { login, password } });
  return { value: expectAnswer(answer, [200], loginAnswer).AuthId, detail: `as ${login}` };
}

export async function checkSession({ api }: StepContext, token: string): Promise<Passed<Caller>> {
  const { userId, parentId } = expectAnswer(await api.send({ method: 'GET', route: '/auth/check', session: token }), [200], checkAnswer);
  return { value: { token, userId, parentId }, detail: `user ${short(userId)}, client ${short(parentId)}` };
}

export async function firstVisibleVehicle({ api }: StepContext, caller: Caller, login: string): Promise<Passed<number>> {
  const answer = await api.send({ method: 'POST', route: '/vehicles/find', body: { limit: 1 }, session: caller.token });
  const [vehicle] = expectAnswer(answer, [200], vehiclesAnswer);
  if (!vehicle) {
    throw new StepFailure(
      `${login} sees no vehicle: register one to its client (npm run admin -- create-vehicle, or POST /vehicles), or name one with --vehicle`,
    );
  }
  return { value: vehicle.vehicleId, detail: `vehicle ${vehicle.vehicleId} "${vehicle.name}"` };
}

export async function createRule({ api, clock }: StepContext, caller: Caller, vehicleId: number): Promise<Passed<number>> {
  const name = `smoke ${new Date(clock.now()).toISOString()}`;
  const body = {
    type: PANIC_BUTTON_RULE_TYPE,
    parentId: caller.parentId,
    name,
    vehicleIds: [vehicleId],
    toEmail: true,
    recipientIds: [caller.userId],
    stored: true,
  };
  const { id } = expectAnswer(await api.send({ method: 'POST', route: '/notifications', body, session: caller.token }), [200, 201], ruleAnswer);
  return { value: id, detail: `rule ${id} "${name}", panic button on vehicle ${vehicleId}, e-mail to user ${short(caller.userId)}` };
}

export async function testSend({ api, clock }: StepContext, caller: Caller, ruleId: number, timeoutMs = TEST_SEND_TIMEOUT_MS): Promise<Passed<void>> {
  const started = clock.now();
  const accepted = expectAnswer(await api.send({ method: 'POST', route: `/notifications/${ruleId}/test`, session: caller.token }), [202], testAnswer);
  const route = `/notifications/${ruleId}/test/${accepted.testId}`;
  // each poll waits for the session's spacing, so the clock moves on between them
  for (;;) {
    const result = expectAnswer(await api.send({ method: 'GET', route, session: caller.token }), [200], testAnswer);
    if (result.status === 'done') {
      const lines = result.targets.map(({ target, outcome, reason }) => `${target}: ${outcome}${reason ? ` (${reason})` : ''}`);
      const sent = result.targets.filter((target) => target.outcome === 'sent').length;
      if (result.targets.length === 0) throw new StepFailure('the test alert had no target', lines);
      if (sent === 0) throw new StepFailure(`no target was sent (${result.targets.length} tried)`, lines);
      const seconds = ((clock.now() - started) / 1000).toFixed(1);
      return { value: undefined, detail: `${sent} of ${result.targets.length} targets sent in ${seconds} s`, lines };
    }
    if (clock.now() - started >= timeoutMs) {
      throw new StepFailure(`no outcome within ${Math.round(timeoutMs / 1000)} s: test ${accepted.testId} still pending`);
    }
  }
}

export async function readHistory({ api, clock }: StepContext, caller: Caller): Promise<Passed<void>> {
  const to = clock.now();
  const body = { from: new Date(to - HOUR_MS).toISOString(), to: new Date(to).toISOString() };
  const { items, nextToken } = expectAnswer(
    await api.send({ method: 'POST', route: '/notifications/history', body, session: caller.token }),
    [200],
    historyAnswer,
  );
  return { value: undefined, detail: `${items.length}${nextToken === null ? '' : '+'} alerts in the last hour` };
}

export async function deleteRule({ api }: StepContext, caller: Caller, ruleId: number): Promise<Passed<void>> {
  expectStatus(await api.send({ method: 'DELETE', route: `/notifications/${ruleId}`, session: caller.token }), [200, 204]);
  return { value: undefined, detail: `rule ${ruleId}` };
}
