import { compileSilence, silenceActiveAt } from '../../pipeline/public/silences';
import { formatSchedule, parseSchedule } from '../../rules/schedule';
import type { StoredSilence } from '../../schemas/silence';
import { getVehicles } from '../../store/directory-store';
import { getGeozones } from '../../store/geozones-store';
import { getRule } from '../../store/rules-store';
import { createSilence, deleteSilence, endSilence, getSilence, listSilences, newSilenceId } from '../../store/silences-store';
import { notFound, validationError, type Issue } from '../errors';
import { limitAsHttp } from '../limit-checks';
import { limits } from '../limits';
import { defineRoute, type Caller } from '../route';
import type { TenantScope } from '../scope';
import { successExample } from '../examples';
import { successSchema } from '../schemas';
import {
  silenceCreateBodySchema,
  silenceCreatedExample,
  silenceCreatedSchema,
  silenceCreateExample,
  silenceEndedExample,
  silenceFindBodySchema,
  silenceFindExample,
  silenceParamsSchema,
  silenceRecordExample,
  silenceSchema,
  type SilenceCreateBody,
  type SilenceRecord,
} from '../silence-schemas';
import * as z from 'zod';

/** Whether a stored silence holds at the instant (its window, if any, open). */
function holdsAt(silence: StoredSilence, time: number): boolean {
  const compiled = compileSilence(silence);
  return compiled !== null && silenceActiveAt(compiled, time);
}

const toRecord = (silence: StoredSilence, now: number): SilenceRecord => ({
  id: silence.id,
  parentId: silence.parentId,
  vehicleIds: silence.vehicleIds,
  ruleIds: silence.ruleIds,
  geozoneIds: silence.geozoneIds,
  from: new Date(silence.from).toISOString(),
  to: new Date(silence.to).toISOString(),
  reason: silence.reason,
  schedule: silence.schedule,
  timezone: silence.timezone,
  createdAt: silence.createdAt,
  createdBy: silence.createdBy,
  via: silence.via,
  endedAt: silence.endedAt,
  endedBy: silence.endedBy,
  active: holdsAt(silence, now),
});

/** The silence, when it exists and the caller may see it; otherwise 404. */
async function visibleSilence(id: string, caller: Caller, now: number): Promise<StoredSilence> {
  const silence = await getSilence(id, now);
  if (!silence || !(await caller.scope.includes(silence.parentId))) throw notFound(`silence ${id}`);
  return silence;
}

/**
 * 400 naming each matcher id that is not the client's: vehicles registered, and rules owned, within the silence's
 * client or below (a silence holds back nothing else), geozones within the caller's scope. Unknown and foreign ids
 * get the same message.
 */
async function checkMatchers(body: SilenceCreateBody, scope: TenantScope): Promise<void> {
  const subtree = new Set(await scope.subtree(body.parentId));
  const inScope = await scope.agentIds();
  const [vehicles, rules, zones] = await Promise.all([
    getVehicles(body.vehicleIds),
    Promise.all(body.ruleIds.map((id) => getRule(id))),
    getGeozones(body.geozoneIds),
  ]);
  const issues: Issue[] = [];
  const ownVehicles = new Set(vehicles.filter((vehicle) => subtree.has(vehicle.parentId)).map((vehicle) => vehicle.vehicleId));
  body.vehicleIds.forEach((id, index) => {
    if (!ownVehicles.has(id))
      issues.push({ path: `vehicleIds.${index}`, message: `no vehicle ${id} of client ${body.parentId} or a client below it` });
  });
  const ownRules = new Set(rules.filter((rule) => rule !== null && subtree.has(rule.parentId)).map((rule) => rule!.id));
  body.ruleIds.forEach((id, index) => {
    if (!ownRules.has(id))
      issues.push({ path: `ruleIds.${index}`, message: `no notification ${id} of client ${body.parentId} or a client below it` });
  });
  const visibleZones = new Set(zones.filter((zone) => inScope.has(zone.parentId)).map((zone) => zone.id));
  body.geozoneIds.forEach((id, index) => {
    if (!visibleZones.has(id)) issues.push({ path: `geozoneIds.${index}`, message: `no geozone ${id} in your scope` });
  });
  if (issues.length > 0) throw validationError(issues);
}

const canonicalSchedule = (text: string | undefined): string | null => {
  if (text === undefined || text.trim() === '') return null;
  const parsed = parseSchedule(text);
  return parsed.ok ? formatSchedule(parsed.schedule) : null;
};

export const silenceRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/silences',
    operationId: 'createSilence',
    tag: 'silences',
    summary: 'Create a maintenance silence',
    description:
      'Body { parentId, vehicleIds?, ruleIds?, geozoneIds?, from, to, reason, schedule?, timezone? }: from `from` until `to`, the events of the ' +
      "client's rules (and of the clients below it) that match raise no alert: they are logged as `silenced` in the rule's suppressed log and, " +
      'for a rule with stored: true, kept in the history marked `silenced`, never delivered. Matchers are ANDed across kinds and ORed within ' +
      'one; at least one is required (400 naming vehicleIds). `to` must be after `from` and at most 90 days later (400 naming to), and in the ' +
      'future. `schedule` (the weekly form of settings.schedule, read in `timezone`) makes the window recurring. An episode still going on ' +
      'when the silence ends (a lost connection, a vehicle outside its zone) is raised once then, marked `afterSilence`. Vehicles and rules must ' +
      "be the client's or a client's below it, geozones of your scope (400 naming the field otherwise). A client holds at most 100 " +
      'silences by default (LIMIT_SILENCES_PER_CLIENT; 400 naming parentId). Takes effect within 30 seconds. Answers { id }.',
    auth: true,
    writes: true,
    body: silenceCreateBodySchema,
    response: silenceCreatedSchema,
    examples: { body: silenceCreateExample, response: silenceCreatedExample },
    errors: [403, 404, 409],
    async handle({ body, caller, now }) {
      await caller.scope.require(body.parentId, `client ${body.parentId}`);
      if (Date.parse(body.to) <= now) throw validationError([{ path: 'to', message: 'to must be in the future' }]);
      await checkMatchers(body, caller.scope);
      const { silence } = await createSilence(
        {
          id: newSilenceId(body.parentId),
          parentId: body.parentId,
          vehicleIds: [...new Set(body.vehicleIds)],
          ruleIds: [...new Set(body.ruleIds)],
          geozoneIds: [...new Set(body.geozoneIds)],
          from: body.from,
          to: body.to,
          reason: body.reason,
          schedule: canonicalSchedule(body.schedule),
          timezone: body.timezone,
          createdAt: new Date(now).toISOString(),
          createdBy: caller.user.login,
          via: 'api',
          endedAt: null,
          endedBy: null,
        },
        limits().silencesPerClient,
      ).catch(limitAsHttp);
      return { body: { id: silence.id } };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/silences/find',
    operationId: 'findSilences',
    tag: 'silences',
    summary: 'List the maintenance silences of a client and of the clients below it',
    description:
      'Body { parentId, activeAt? }: the silences of the client and of the clients below it, oldest first, with `active` saying whether each ' +
      'holds now; with activeAt, only those that hold at that instant. Ended silences are kept 7 days after their end. A client outside your ' +
      'scope is 404.',
    auth: true,
    writes: false,
    body: silenceFindBodySchema,
    response: z.array(silenceSchema),
    examples: { body: silenceFindExample, response: [silenceRecordExample] },
    errors: [404],
    async handle({ body, caller, now }) {
      const clients = await caller.scope.subtree(body.parentId);
      const silences = (await Promise.all(clients.map((clientId) => listSilences(clientId, now)))).flat();
      const at = body.activeAt === undefined ? undefined : Date.parse(body.activeAt);
      return {
        body: silences
          .filter((silence) => at === undefined || holdsAt(silence, at))
          .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
          .map((silence) => toRecord(silence, now)),
      };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/silences/{id}',
    operationId: 'getSilence',
    tag: 'silences',
    summary: 'Read one maintenance silence',
    description: 'The silence, when it belongs to your client or one below it (otherwise 404).',
    auth: true,
    writes: false,
    params: silenceParamsSchema,
    response: silenceSchema,
    examples: { response: silenceRecordExample },
    errors: [404],
    async handle({ params, caller, now }) {
      return { body: toRecord(await visibleSilence(params.id, caller, now), now) };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/silences/{id}/end',
    operationId: 'endSilence',
    tag: 'silences',
    summary: 'End a maintenance silence now',
    description:
      'Ends the silence now (`endedAt`, `endedBy`): events from now on raise alerts again (within 30 seconds), and an episode it held back ' +
      "that still goes on is raised once, marked `afterSilence`, within about 10 minutes or with the vehicle's next message. A silence that " +
      'already ended is answered as it is.',
    auth: true,
    writes: true,
    params: silenceParamsSchema,
    response: silenceSchema,
    examples: { response: silenceEndedExample },
    errors: [403, 404],
    async handle({ params, caller, now }) {
      await visibleSilence(params.id, caller, now);
      const ended = await endSilence(params.id, caller.user.login, now);
      if (!ended) throw notFound(`silence ${params.id}`);
      return { body: toRecord(ended, now) };
    },
  }),

  defineRoute({
    method: 'DELETE',
    path: '/api/v3/silences/{id}',
    operationId: 'deleteSilence',
    tag: 'silences',
    summary: 'Delete a maintenance silence',
    description:
      "Deletes the silence and frees its place in the client's count. Like an end, it stops holding events back (within 30 seconds); the " +
      "rules' suppressed logs keep its id.",
    auth: true,
    writes: true,
    params: silenceParamsSchema,
    response: successSchema,
    examples: { response: successExample },
    errors: [403, 404],
    async handle({ params, caller, now }) {
      const silence = await visibleSilence(params.id, caller, now);
      if (!(await deleteSilence(silence))) throw notFound(`silence ${params.id}`);
      return { body: 'Success' };
    },
  }),
];
