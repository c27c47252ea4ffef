import { getAgent } from '../../store/directory-store';
import { agentFindBodySchema, agentFindResponseSchema, agentParamsSchema, agentRecordSchema } from '../directory-schemas';
import { agentSummary, pageOf } from '../directory-views';
import { notFound } from '../errors';
import { defineRoute } from '../route';

export const agentRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/agents/find',
    operationId: 'findClients',
    tag: 'clients',
    summary: 'List a client and the clients below it',
    description:
      'Answers the client given as parentId (default your own) and every client below it, in hierarchy order (the client first). ' +
      'A client outside your scope is 404.',
    auth: true,
    writes: false,
    body: agentFindBodySchema,
    response: agentFindResponseSchema,
    errors: [404],
    async handle({ body, caller }) {
      const ids = await caller.scope.subtree(body.parentId ?? caller.scope.rootId);
      const agents = await Promise.all(pageOf(ids, body).map(getAgent));
      return { body: agents.flatMap((agent) => (agent ? [agentSummary(agent)] : [])) };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/agents/{id}',
    operationId: 'getClient',
    tag: 'clients',
    summary: 'Read one client',
    description: "The client with its parent's name, when it is your client or one below it (otherwise 404).",
    auth: true,
    writes: false,
    params: agentParamsSchema,
    response: agentRecordSchema,
    errors: [404],
    async handle({ params, caller }) {
      await caller.scope.require(params.id, `client ${params.id}`);
      const agent = await getAgent(params.id);
      if (!agent) throw notFound(`client ${params.id}`);
      const parent = agent.parentId ? await getAgent(agent.parentId) : null;
      return { body: { ...agentSummary(agent), parentName: parent?.name ?? null } };
    },
  }),
];
