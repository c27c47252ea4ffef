import { openRun, runDetail } from '../../pipeline/public/suppressed-log';
import { SUPPRESSION_REASONS } from '../../schemas/suppression';
import { isEffective } from '../../rules/lifecycle';
import { getVehicles } from '../../store/directory-store';
import { ruleCovers } from '../../store/rule-coverage';
import { getRule } from '../../store/rules-store';
import { readSuppressedRuns } from '../../store/suppressed-log';
import { loadVehicleState } from '../../store/vehicle-state-store';
import { notFound } from '../errors';
import { defineRoute } from '../route';
import {
  suppressedAnswerExample,
  suppressedBodySchema,
  suppressedExample,
  suppressedResponseSchema,
  type SuppressedResponse,
} from '../suppressed-schemas';

type Run = SuppressedResponse['runs'][number];
const iso = (ms: number) => new Date(ms).toISOString();

export const suppressedRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/notifications/suppressed',
    operationId: 'listSuppressedEvaluations',
    tag: 'notifications',
    summary: 'Why a rule raised no alert for a vehicle',
    description:
      'Body { ruleId, vehicleId, from, to }: the evaluations of the rule for the vehicle that did not become alerts, as runs of one reason ' +
      '(first and last time, count) overlapping [from, to], newest first: outsideSchedule, outsideZones / insideZones (the zone condition), ' +
      'cooldown, maxPerDay, staleMessage (a late or repeated message), belowMinDuration (an episode that ended before its minimum duration), ' +
      'tooOld (raised by a message older than settings.maxEventAge when evaluated, with the oldest age in `age`), ' +
      'silenced (a maintenance silence held it back; silenceId names it). A run closes when an alert goes out or another reason begins; the last ' +
      '16 closed runs and the open one are kept, for 30 days after the last. `now` says why the rule raises nothing for the vehicle at all at ' +
      "the moment (switched off, out of its period, not watching the vehicle, the vehicle not its client's). The rule and the vehicle must be " +
      'of your scope, else 404.',
    auth: true,
    writes: false,
    body: suppressedBodySchema,
    response: suppressedResponseSchema,
    examples: { body: suppressedExample, response: suppressedAnswerExample },
    errors: [404],
    async handle({ body, caller, now }) {
      const [vehicle] = await getVehicles([body.vehicleId]);
      if (!vehicle || !(await caller.scope.includes(vehicle.parentId))) throw notFound(`vehicle ${body.vehicleId}`);
      const rule = await getRule(body.ruleId);
      if (!rule || !(await caller.scope.includes(rule.parentId))) throw notFound(`notification ${body.ruleId}`);
      const [logged, item] = await Promise.all([readSuppressedRuns(body.vehicleId, body.ruleId, now), loadVehicleState(body.vehicleId)]);
      const runs: Run[] = logged.flatMap(([code, first, last, count, detail]) => {
        const reason = SUPPRESSION_REASONS[code];
        return reason === undefined ? [] : [{ reason, first: iso(first), last: iso(last), count, open: false, ...runDetail(detail) }];
      });
      const open = openRun(item.state?.noise?.[String(body.ruleId)]);
      if (open) {
        const { reason, first, last, count, ...detail } = open;
        runs.push({ reason, first: iso(first), last: iso(last), count, open: true, ...detail });
      }
      const from = Date.parse(body.from);
      const to = Date.parse(body.to);
      const inWindow = runs
        .filter((run) => Date.parse(run.last) >= from && Date.parse(run.first) <= to)
        .sort((a, b) => b.last.localeCompare(a.last) || Number(b.open) - Number(a.open));
      const reasons: SuppressedResponse['now'] = [];
      if (!rule.active) reasons.push('ruleInactive');
      else if (!isEffective(rule, now)) reasons.push('ruleExpired');
      const owners = item.projection.owners;
      if (!owners.includes(rule.parentId)) reasons.push('vehicleNotOwned');
      else if (!ruleCovers(rule, body.vehicleId, owners)) reasons.push('vehicleNotWatched');
      return { body: { runs: inWindow, now: reasons } satisfies SuppressedResponse };
    },
  }),
];
