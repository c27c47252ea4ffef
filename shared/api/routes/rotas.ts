import * as z from 'zod';
import { anchorAt, onCallAt } from '../../delivery/on-call';
import type { StoredRota } from '../../schemas/rota';
import { MAX_OVERRIDES } from '../../schemas/rota';
import { getUsers, subtreeAgentIds } from '../../store/directory-store';
import {
  createRota,
  deleteRota,
  getRota,
  listRotas,
  newOverrideId,
  newRotaId,
  replaceRota,
  RotaConflictError,
  RotaLimitError,
} from '../../store/rotas-store';
import { clientAndAncestors } from '../../store/directory-store';
import { listRulesOfClient } from '../../store/rules-store';
import { commonSettings } from '../../rules/settings';
import { conflict, notFound, validationError, type Issue } from '../errors';
import { successExample } from '../examples';
import { limits } from '../limits';
import { defineRoute, type Caller } from '../route';
import {
  onCallExample,
  onCallQuerySchema,
  onCallSchema,
  overrideCreatedExample,
  overrideCreatedSchema,
  rotaCreateBodySchema,
  rotaCreatedExample,
  rotaCreatedSchema,
  rotaCreateExample,
  rotaFindBodySchema,
  rotaFindExample,
  rotaOverrideBodySchema,
  rotaOverrideExample,
  rotaOverrideParamsSchema,
  rotaParamsSchema,
  rotaRecordExample,
  rotaReplaceBodySchema,
  rotaReplaceExample,
  rotaSchema,
  type RotaRecord,
} from '../rota-schemas';
import { successSchema } from '../schemas';

const iso = (ms: number) => new Date(ms).toISOString();

/** A rota as the API answers it: overrides already over are left out. */
const toRecord = (rota: StoredRota, now: number): RotaRecord => ({
  id: rota.id,
  parentId: rota.parentId,
  name: rota.name,
  timezone: rota.timezone,
  participants: rota.participants,
  handoff: rota.handoff,
  overrides: rota.overrides
    .filter((override) => Date.parse(override.to) > now)
    .map((override) => ({ ...override, from: iso(Date.parse(override.from)), to: iso(Date.parse(override.to)) })),
  version: rota.version,
  createdAt: rota.createdAt,
  createdBy: rota.createdBy,
  updatedAt: rota.updatedAt,
});

/** The rota, when it exists and the caller may see it; otherwise 404. */
async function visibleRota(id: string, caller: Caller): Promise<StoredRota> {
  const rota = await getRota(id);
  if (!rota || !(await caller.scope.includes(rota.parentId))) throw notFound(`rota ${id}`);
  return rota;
}

/**
 * 400 naming each user who cannot be on call for the client: users of the client or of a client above it may
 * be (a dispatcher of the parent company covering a subsidiary), others and unknown ids may not.
 */
async function checkUsers(clientId: string, userIds: readonly string[], path: (index: number) => string): Promise<void> {
  const allowed = new Set(await clientAndAncestors(clientId));
  const users = new Map((await getUsers([...new Set(userIds)])).map((user) => [user.id, user]));
  const issues: Issue[] = [];
  userIds.forEach((userId, index) => {
    const user = users.get(userId);
    if (!user || !allowed.has(user.parentId))
      issues.push({ path: path(index), message: `no user ${userId} of client ${clientId} or of a client above it` });
  });
  if (issues.length > 0) throw validationError(issues);
}

/** Overrides kept on a rota: those not yet over, the newest MAX_OVERRIDES. */
const liveOverrides = (rota: StoredRota, now: number) => rota.overrides.filter((override) => Date.parse(override.to) > now);

async function replaced(next: StoredRota): Promise<StoredRota> {
  try {
    return await replaceRota(next);
  } catch (error) {
    if (error instanceof RotaConflictError) throw conflict(`${error.message}: read it again and retry`);
    throw error;
  }
}

/**
 * The rules whose escalation names the rota: only rules of its client or of a client below it may (a rota serves
 * its client's subtree), so those are read, one Query per client, however large the platform.
 */
async function rulesUsingRota(rota: StoredRota): Promise<number[]> {
  const clients = await subtreeAgentIds(rota.parentId);
  const rules = (await Promise.all(clients.map((clientId) => listRulesOfClient(clientId)))).flat();
  return rules
    .filter((rule) => (commonSettings().escalation.safeParse(rule.settings.escalation).data ?? []).some((level) => level.rotaIds.includes(rota.id)))
    .map((rule) => rule.id)
    .sort((a, b) => a - b);
}

export const rotaRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/rotas',
    operationId: 'createRota',
    tag: 'rotas',
    summary: 'Create an on-call rota',
    description:
      'Body { parentId, name, timezone, participants, handoff }: the participants take turns being on call, in their order, the next one ' +
      'taking over at each handoff (every day, or every week on `weekday`, at `at` local time in `timezone`). The first participant is on ' +
      'call from the last handoff before now. Participants must be users of the client or of a client above it (400 naming ' +
      'participants.<i>). A client owns at most 50 rotas by default (LIMIT_ROTAS_PER_CLIENT; 400 naming parentId). Answers { id }.',
    auth: true,
    writes: true,
    body: rotaCreateBodySchema,
    response: rotaCreatedSchema,
    examples: { body: rotaCreateExample, response: rotaCreatedExample },
    errors: [403, 404],
    async handle({ body, caller, now }) {
      await caller.scope.require(body.parentId, `client ${body.parentId}`);
      await checkUsers(body.parentId, body.participants, (index) => `participants.${index}`);
      const at = iso(now);
      try {
        const rota = await createRota(
          {
            id: newRotaId(body.parentId),
            parentId: body.parentId,
            name: body.name,
            timezone: body.timezone,
            participants: body.participants,
            handoff: body.handoff,
            anchor: anchorAt(body.handoff, body.timezone, now),
            overrides: [],
            version: 1,
            createdAt: at,
            createdBy: caller.user.login,
            updatedAt: at,
          },
          limits().rotasPerClient,
        );
        return { body: { id: rota.id } };
      } catch (error) {
        if (error instanceof RotaLimitError) throw validationError([{ path: 'parentId', message: error.message }]);
        throw error;
      }
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/rotas/find',
    operationId: 'findRotas',
    tag: 'rotas',
    summary: 'List the on-call rotas of a client and of the clients below it',
    description: 'Body { parentId }: the rotas of the client and of the clients below it, by name. A client outside your scope is 404.',
    auth: true,
    writes: false,
    body: rotaFindBodySchema,
    response: z.array(rotaSchema),
    examples: { body: rotaFindExample, response: [rotaRecordExample] },
    errors: [404],
    async handle({ body, caller, now }) {
      const clients = await caller.scope.subtree(body.parentId);
      const rotas = (await Promise.all(clients.map((clientId) => listRotas(clientId)))).flat();
      return {
        body: rotas.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)).map((rota) => toRecord(rota, now)),
      };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/rotas/{id}',
    operationId: 'getRota',
    tag: 'rotas',
    summary: 'Read one on-call rota',
    description: 'The rota with its overrides not yet over, when it belongs to your client or one below it (otherwise 404).',
    auth: true,
    writes: false,
    params: rotaParamsSchema,
    response: rotaSchema,
    examples: { response: rotaRecordExample },
    errors: [404],
    async handle({ params, caller, now }) {
      return { body: toRecord(await visibleRota(params.id, caller), now) };
    },
  }),

  defineRoute({
    method: 'PUT',
    path: '/api/v3/rotas/{id}',
    operationId: 'replaceRota',
    tag: 'rotas',
    summary: 'Change an on-call rota',
    description:
      'Body { name, timezone, participants, handoff }: replaces them. When the participants, the handoff or the timezone change, the rota ' +
      'starts again: its first participant is on call from the last handoff before now. A name change alone moves no one. Overrides stay. ' +
      '409 when another change came first.',
    auth: true,
    writes: true,
    params: rotaParamsSchema,
    body: rotaReplaceBodySchema,
    response: rotaSchema,
    examples: { body: rotaReplaceExample, response: rotaRecordExample },
    errors: [403, 404, 409],
    async handle({ params, body, caller, now }) {
      const current = await visibleRota(params.id, caller);
      await checkUsers(current.parentId, body.participants, (index) => `participants.${index}`);
      const restarts =
        JSON.stringify([current.participants, current.handoff, current.timezone]) !==
        JSON.stringify([body.participants, body.handoff, body.timezone]);
      const next = await replaced({
        ...current,
        ...body,
        anchor: restarts ? anchorAt(body.handoff, body.timezone, now) : current.anchor,
        overrides: liveOverrides(current, now),
        version: current.version + 1,
        updatedAt: iso(now),
      });
      return { body: toRecord(next, now) };
    },
  }),

  defineRoute({
    method: 'DELETE',
    path: '/api/v3/rotas/{id}',
    operationId: 'deleteRota',
    tag: 'rotas',
    summary: 'Delete an on-call rota',
    description:
      'Deletes the rota and its overrides. 409 while an escalation level of a rule names it (the message lists the rules): take it ' +
      'out of their settings.escalation first.',
    auth: true,
    writes: true,
    params: rotaParamsSchema,
    response: successSchema,
    examples: { response: successExample },
    errors: [403, 404, 409],
    async handle({ params, caller }) {
      const rota = await visibleRota(params.id, caller);
      const users = await rulesUsingRota(rota);
      if (users.length > 0)
        throw conflict(
          `rota ${rota.id} is used by the escalation of notification rule(s) ${users.join(', ')}; take it out of their settings.escalation first`,
        );
      if (!(await deleteRota(rota))) throw notFound(`rota ${params.id}`);
      return { body: 'Success' };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/rotas/{id}/overrides',
    operationId: 'createRotaOverride',
    tag: 'rotas',
    summary: 'Put someone on call instead, for a while',
    description:
      'Body { userId, from, to }: from `from` until `to`, userId is on call instead of whoever the rotation names (someone covering a ' +
      "shift). Where two overrides cover the same time, the one made later wins. The user must be of the rota's client or of a client " +
      `above it (400 naming userId); \`to\` after \`from\`, at most 90 days later, and in the future. A rota keeps at most ${MAX_OVERRIDES} ` +
      'overrides not yet over (400 naming from). Answers { id }.',
    auth: true,
    writes: true,
    params: rotaParamsSchema,
    body: rotaOverrideBodySchema,
    response: overrideCreatedSchema,
    examples: { body: rotaOverrideExample, response: overrideCreatedExample },
    errors: [403, 404, 409],
    async handle({ params, body, caller, now }) {
      const current = await visibleRota(params.id, caller);
      await checkUsers(current.parentId, [body.userId], () => 'userId');
      if (Date.parse(body.to) <= now) throw validationError([{ path: 'to', message: 'to must be in the future' }]);
      const kept = liveOverrides(current, now);
      if (kept.length >= MAX_OVERRIDES) throw validationError([{ path: 'from', message: `the rota already holds ${MAX_OVERRIDES} overrides` }]);
      const id = newOverrideId();
      const override = { id, userId: body.userId, from: body.from, to: body.to, createdAt: iso(now), createdBy: caller.user.login };
      await replaced({ ...current, overrides: [...kept, override], version: current.version + 1, updatedAt: iso(now) });
      return { body: { id } };
    },
  }),

  defineRoute({
    method: 'DELETE',
    path: '/api/v3/rotas/{id}/overrides/{overrideId}',
    operationId: 'deleteRotaOverride',
    tag: 'rotas',
    summary: 'Delete an override',
    description: 'The rotation takes over again where the override was. 404 when the rota has no such override.',
    auth: true,
    writes: true,
    params: rotaOverrideParamsSchema,
    response: successSchema,
    examples: { response: successExample },
    errors: [403, 404, 409],
    async handle({ params, caller, now }) {
      const current = await visibleRota(params.id, caller);
      if (!current.overrides.some((override) => override.id === params.overrideId)) throw notFound(`override ${params.overrideId}`);
      await replaced({
        ...current,
        overrides: liveOverrides(current, now).filter((override) => override.id !== params.overrideId),
        version: current.version + 1,
        updatedAt: iso(now),
      });
      return { body: 'Success' };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/rotas/{id}/oncall',
    operationId: 'getOnCall',
    tag: 'rotas',
    summary: 'Who is on call at a time',
    description:
      "Query `at` (ISO 8601 with offset; default now): who is on call then, since when and until when: the rotation's participant, or the " +
      "override that puts someone else on call. Handoffs follow the rota's zone's wall clock, so a daylight-saving change moves their " +
      'instant, never their local time.',
    auth: true,
    writes: false,
    params: rotaParamsSchema,
    query: onCallQuerySchema,
    response: onCallSchema,
    examples: { response: onCallExample },
    errors: [404],
    async handle({ params, query, caller, now }) {
      const rota = await visibleRota(params.id, caller);
      const at = query.at === undefined ? now : Date.parse(query.at);
      const onCall = onCallAt(rota, at);
      const [user] = await getUsers([onCall.userId]);
      return {
        body: {
          userId: onCall.userId,
          login: user?.login ?? null,
          from: iso(onCall.from),
          until: iso(onCall.until),
          ...(onCall.overrideId ? { overrideId: onCall.overrideId } : {}),
          at: iso(at),
        },
      };
    },
  }),
];
