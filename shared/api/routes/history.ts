import { queryHistory, type HistorySource } from '../../store/alerts/history-store';
import { getVehicles } from '../../store/directory-store';
import { getRule } from '../../store/rules-store';
import { notFound } from '../errors';
import { decodeHistoryToken, encodeHistoryToken, type HistoryTokenQuery } from '../history-token';
import { defineRoute } from '../route';
import { historyBodySchema, historyResponseSchema } from '../history-schemas';
import { historyAnswerExample, historyExample } from '../examples';
import { SEVERITIES } from '../../schemas/alert';

export const historyRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/notifications/history',
    operationId: 'findAlerts',
    tag: 'notifications',
    summary: 'Stored alerts, newest first',
    description:
      'Alerts of rules with stored: true whose event time lies in [from, to], of a client and the clients below it (default: your own), ' +
      'optionally of one rule or one vehicle (each of your scope, else 404), in one state (open, acknowledged, cleared, closed; alerts stored ' +
      'before states existed count as open), and of one severity or several (info, warning, critical; alerts stored before severities count as ' +
      "their type's default). Each alert carries its severity, its state, its acknowledgement and its lifecycle. A page may hold fewer than limit alerts, even none, " +
      'while nextToken is not null: each request reads a bounded number of pages. Pass nextToken from the previous page, with the same query, to read on: ' +
      'a token is signed for the query that returned it, and any other token answers 400 naming nextToken.',
    auth: true,
    writes: false,
    body: historyBodySchema,
    response: historyResponseSchema,
    examples: { body: historyExample, response: historyAnswerExample },
    errors: [404],
    async handle({ body, caller }) {
      const from = new Date(body.from).toISOString();
      const to = new Date(body.to).toISOString();
      const chosen = body.severity === undefined ? undefined : [body.severity].flat();
      const severities = chosen && SEVERITIES.filter((level) => chosen.includes(level));
      const tokenQuery: HistoryTokenQuery = {
        clientId: caller.user.parentId,
        parentId: body.parentId,
        ruleId: body.ruleId,
        vehicleId: body.vehicleId,
        state: body.state,
        severities,
        from,
        to,
      };
      const before = body.nextToken === undefined ? undefined : await decodeHistoryToken(body.nextToken, tokenQuery);
      if (body.vehicleId !== undefined) {
        // as gis/intersections: a vehicle outside the scope now is not read at all, whoever's alerts its partition holds
        const [vehicle] = await getVehicles([body.vehicleId]);
        if (!vehicle || !(await caller.scope.includes(vehicle.parentId))) throw notFound(`vehicle ${body.vehicleId}`);
      }
      const rule = body.ruleId === undefined ? undefined : await getRule(body.ruleId);
      if (body.ruleId !== undefined && (!rule || !(await caller.scope.includes(rule.parentId)))) throw notFound(`notification ${body.ruleId}`);
      const clients =
        body.parentId !== undefined ? await caller.scope.subtree(body.parentId) : rule ? [rule.parentId] : [...(await caller.scope.agentIds())];
      const source: HistorySource =
        body.vehicleId !== undefined ? { kind: 'vehicle', vehicleId: body.vehicleId } : { kind: 'clients', parentIds: clients };
      const page = await queryHistory({
        source,
        from,
        to,
        limit: body.limit,
        before,
        ruleId: body.ruleId,
        state: body.state,
        parentIds: new Set(clients),
        ...(severities ? { severities: new Set(severities) } : {}),
      });
      return { body: { items: page.items, nextToken: page.cursor === null ? null : await encodeHistoryToken(page.cursor, tokenQuery) } };
    },
  }),
];
