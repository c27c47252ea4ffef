import { queryHistory, type HistorySource } from '../../store/history-store';
import { getRule } from '../../store/rules-store';
import { notFound, validationError } from '../errors';
import { defineRoute } from '../route';
import { historyBodySchema, historyResponseSchema } from '../schemas';
import { historyAnswerExample, historyExample } from '../examples';

/** The page cursor handed to clients: the last timeKey of a page, base64url-wrapped so it stays opaque. */
function encodeToken(cursor: string): string {
  return Buffer.from(JSON.stringify({ before: cursor }), 'utf8').toString('base64url');
}

function decodeToken(token: string): string {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { before?: unknown };
    if (typeof value.before === 'string' && value.before.length > 0) return value.before;
  } catch {
    // answered below
  }
  throw validationError([{ path: 'nextToken', message: 'not a token this endpoint returned' }]);
}

export const historyRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/notifications/history',
    tag: 'notifications',
    summary: 'Stored alerts, newest first',
    description:
      'Alerts of rules with stored: true whose event time lies in [from, to], of a client and the clients below it (default: your own), ' +
      'optionally of one rule or one vehicle. Pass nextToken from the previous page to read on.',
    auth: true,
    writes: false,
    body: historyBodySchema,
    response: historyResponseSchema,
    examples: { body: historyExample, response: historyAnswerExample },
    errors: [404],
    async handle({ body, caller }) {
      const before = body.nextToken === undefined ? undefined : decodeToken(body.nextToken);
      const rule = body.ruleId === undefined ? undefined : await getRule(body.ruleId);
      if (body.ruleId !== undefined && (!rule || !(await caller.scope.includes(rule.parentId)))) throw notFound(`notification ${body.ruleId}`);
      const clients =
        body.parentId !== undefined ? await caller.scope.subtree(body.parentId) : rule ? [rule.parentId] : [...(await caller.scope.agentIds())];
      const source: HistorySource =
        body.vehicleId !== undefined ? { kind: 'vehicle', vehicleId: body.vehicleId } : { kind: 'clients', parentIds: clients };
      const page = await queryHistory({
        source,
        from: new Date(body.from).toISOString(),
        to: new Date(body.to).toISOString(),
        limit: body.limit,
        before,
        ruleId: body.ruleId,
        parentIds: new Set(clients),
      });
      return { body: { items: page.items, nextToken: page.cursor === null ? null : encodeToken(page.cursor) } };
    },
  }),
];
