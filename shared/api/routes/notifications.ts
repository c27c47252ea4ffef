import * as z from 'zod';
import type { NotificationBody, StoredRule } from '../../schemas/notification';
import { prolong, replacedValidity } from '../../rules/lifecycle';
import { getAgent } from '../../store/directory-store';
import { existingGeozoneIds, geozonesExist } from '../../store/geozones-store';
import { conditionZoneIds, ruleProblems } from '../../rules/rule-validation';
import {
  RuleReferenceGoneError,
  StaleRuleError,
  createRule,
  newRuleRecord,
  deleteRule,
  getRule,
  listRulesOfClient,
  replaceRule,
  setRuleExpiries,
} from '../../store/rules-store';
import { conflict, notFound } from '../errors';
import { defineRoute, type Caller } from '../route';
import { checkedRule } from '../checked-rule';
import { askSideAddresses, requireSideAddressRoom } from '../side-address-confirmation';
import { recipientProblems } from '../recipient-problems';
import { sideAddressProblems } from '../side-address-problems';
import { limitAsHttp } from '../limit-checks';
import { limits } from '../limits';
import { etag, ifMatchVersion, requireVersion } from '../versioning';
import {
  parentIdExample,
  prolongationAnswerExample,
  prolongationExample,
  ruleCreateExample,
  ruleReadExample,
  ruleRecordExample,
  ruleReplaceExample,
  ruleSummariesExample,
  successExample,
} from '../examples';
import {
  idParamsSchema,
  notificationCreateBodySchema,
  notificationRecordSchema,
  notificationReplaceBodySchema,
  notificationSummarySchema,
  parentIdBodySchema,
  prolongationBodySchema,
  prolongationResponseSchema,
  successSchema,
} from '../schemas';

/** Transactions hold at most 100 items: the rule, up to two rule counts (a move), and this many geozone existence checks. */
const MAX_GEOZONE_CHECKS = 97;

type NotificationRecord = z.infer<typeof notificationRecordSchema>;

export function toRecord(rule: StoredRule): NotificationRecord {
  const { createdAt: _c, updatedAt: _u, validFrom: _v, ...record } = rule;
  return record;
}

/**
 * Each rule's problems against the geozones that exist now (one keys-only read for all of them), as the
 * `problems` field: absent when the rule can fully work.
 */
async function problemsOf(rules: readonly StoredRule[]): Promise<Map<number, { problems?: { path: string; message: string }[] }>> {
  const existing = await existingGeozoneIds(rules.flatMap(referencedZoneIds));
  return new Map(
    rules.map((rule) => {
      const problems = ruleProblems(rule, (id) => existing.has(id)).map(({ path, message }) => ({ path, message }));
      return [rule.id, problems.length > 0 ? { problems } : {}];
    }),
  );
}

/** The rule, when it exists and the caller may see it; otherwise 404. */
async function visibleRule(id: number, caller: Caller): Promise<StoredRule> {
  const rule = await getRule(id);
  if (!rule || !(await caller.scope.includes(rule.parentId))) throw notFound(`notification ${id}`);
  return rule;
}

async function parentNameOf(parentId: string): Promise<string> {
  return (await getAgent(parentId))?.name ?? '';
}

function staleAsConflict(error: unknown): never {
  if (error instanceof StaleRuleError || error instanceof RuleReferenceGoneError) throw conflict(error.message);
  throw error;
}

/** Every geozone a rule names: its geoids and its zone condition's zones. */
const referencedZoneIds = (rule: Pick<NotificationBody, 'geoids' | 'settings'>) => [...new Set([...rule.geoids, ...conditionZoneIds(rule.settings)])];

const existenceChecks = (body: NotificationBody) => {
  const ids = referencedZoneIds(body);
  return ids.length <= MAX_GEOZONE_CHECKS ? geozonesExist(ids) : [];
};

export const notificationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/notifications/find',
    operationId: 'findNotificationRules',
    tag: 'notifications',
    summary: 'List notification rules of a client and of the clients below it',
    description:
      'Every rule of the client given as parentId and of the clients below it, ordered by id, each with the problems that keep it from firing (for example a geozone it names that was deleted). A client outside your scope is 404.',
    auth: true,
    writes: false,
    body: parentIdBodySchema,
    response: z.array(notificationSummarySchema),
    examples: { body: parentIdExample, response: ruleSummariesExample },
    errors: [404],
    async handle({ body, caller }) {
      const clients = await caller.scope.subtree(body.parentId);
      const rules = (await Promise.all(clients.map(listRulesOfClient))).flat().sort((a, b) => a.id - b.id);
      const problems = await problemsOf(rules);
      return {
        body: rules.map(({ id, name, active, type, userId, parentId, parentName }) => ({
          id,
          name,
          active,
          type,
          userId,
          parentId,
          parentName,
          ...problems.get(id),
        })),
      };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/v3/notifications/{id}',
    operationId: 'getNotificationRule',
    tag: 'notifications',
    summary: 'Read one notification rule',
    description:
      'The rule with its settings, when it belongs to your client or one below it (otherwise 404). The ETag header carries its version, for an If-Match on the next replace or delete. ' +
      '`problems` also names each recipient a switched-on channel does not reach yet (`recipientIds.<i>`: no Telegram chat linked for ' +
      'toTelegram, no phone registered for toMobile, the user disabled or gone), and each side address that gets no alerts although ' +
      "it is on the rule: its confirmation waits for the client's daily budget (with the time it resumes), the client's confirmations " +
      'are stopped after bounces or complaints, or the address unsubscribed from every rule of the client.',
    auth: true,
    writes: false,
    params: idParamsSchema,
    response: notificationRecordSchema,
    examples: { response: ruleReadExample },
    errors: [404],
    async handle({ params, caller, now }) {
      const rule = await visibleRule(params.id, caller);
      const [ruleProblems, recipients, sideAddresses] = await Promise.all([
        problemsOf([rule]),
        recipientProblems(rule),
        sideAddressProblems(rule, now),
      ]);
      const problems = [...(ruleProblems.get(rule.id)?.problems ?? []), ...recipients, ...sideAddresses];
      return { body: { ...toRecord(rule), ...(problems.length > 0 ? { problems } : {}) }, headers: etag(rule.version) };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/v3/notifications',
    operationId: 'createNotificationRule',
    tag: 'notifications',
    summary: 'Create a notification rule',
    description:
      'Returns the stored record with its new id. A null userId makes the caller the owner. Geozones, recipients and the owner must ' +
      'belong to your clients, and so must vehicles: an unknown vehicle id is refused like a foreign one. An address rule (type 10) ' +
      'sent without latitude and longitude has them found from settings.address by the geocoder and stored (400 where the ' +
      'installation has none, or it finds no place; 503 when it does not answer). A channel switched on must be able to reach someone, ' +
      'otherwise 400 naming it: toEmail and toMobile a recipient, enableSideEmails an address, toTelegram a chat in telegrams or a ' +
      'recipient. Recipients need not have linked a Telegram chat or registered a phone yet: `problems` in the answer names each one ' +
      'a channel does not reach yet (as GET does), and alerts reach them once they do. An unknown field is answered 400 naming it; the read-only fields of the answer ' +
      '(id, version, parentName, expiresAt, problems) are taken and ignored. Side addresses (enableSideEmails) that were ' +
      "never asked are sent their confirmation link now (one per mailbox: `a+x@d` and `A@d` are one; at most the client's daily " +
      'budget, the rest the next day); alerts to an address wait for its confirmation for up to 24 hours. Side addresses new to ' +
      'the client count against its cap of unconfirmed addresses until they confirm; past it, 400 naming sideEmails.',
    auth: true,
    writes: true,
    body: notificationCreateBodySchema,
    response: notificationRecordSchema,
    examples: { body: ruleCreateExample, response: ruleRecordExample },
    errors: [403, 404, 409, 503],
    async handle({ body, caller, now }) {
      const owned = await checkedRule(body, caller);
      await requireSideAddressRoom(owned, now);
      const rule = await createRule(newRuleRecord(owned, await parentNameOf(body.parentId), now), existenceChecks(owned), limits().rulesPerClient)
        .catch(limitAsHttp)
        .catch(staleAsConflict);
      await askSideAddresses(rule, now);
      const problems = await recipientProblems(rule);
      return { body: { ...toRecord(rule), ...(problems.length > 0 ? { problems } : {}) }, headers: etag(rule.version) };
    },
  }),

  defineRoute({
    method: 'PUT',
    path: '/api/v3/notifications',
    operationId: 'replaceNotificationRule',
    tag: 'notifications',
    summary: 'Replace a notification rule',
    description:
      'Replaces the whole record: a field not sent is reset to its default. Answers "Success" (the new version is in the ETag header). ' +
      'A version in the body or an If-Match header must equal the stored version, otherwise 409. The record as GET answers it may be ' +
      'sent back: parentName, expiresAt and problems are ignored; any other unknown field is answered 400 naming it. Channels are ' +
      'checked as on create; recipients and Telegram chats already on the rule (for the same client) are not checked again, so a ' +
      'recipient who was disabled or unlinked a chat since never makes an edit fail (GET names them in `problems`). Side addresses never asked are sent their confirmation link, and new ones count against the ' +
      "client's cap of unconfirmed addresses, as on creation.",
    auth: true,
    writes: true,
    body: notificationReplaceBodySchema,
    response: successSchema,
    examples: { body: ruleReplaceExample, response: successExample },
    errors: [403, 404, 409, 503],
    async handle({ body, caller, headers, now }) {
      const previous = await visibleRule(body.id, caller);
      await caller.scope.require(body.parentId, `client ${body.parentId}`);
      requireVersion(previous, 'notification', body.version, ifMatchVersion(headers));
      const owned = await checkedRule(body, caller, previous);
      const { id } = body;
      await requireSideAddressRoom(owned, now);
      const next: StoredRule = {
        ...owned,
        id,
        parentName: previous.parentId === owned.parentId ? previous.parentName : await parentNameOf(owned.parentId),
        version: previous.version + 1,
        createdAt: previous.createdAt,
        updatedAt: new Date(now).toISOString(),
        ...replacedValidity(previous, owned, now),
      };
      const move = { previousParentId: previous.parentId, limit: limits().rulesPerClient };
      await replaceRule(next, previous.version, existenceChecks(owned), move).catch(limitAsHttp).catch(staleAsConflict);
      await askSideAddresses(next, now);
      return { body: 'Success', headers: etag(next.version) };
    },
  }),

  defineRoute({
    method: 'DELETE',
    path: '/api/v3/notifications/{id}',
    operationId: 'deleteNotificationRule',
    tag: 'notifications',
    summary: 'Delete a notification rule',
    description: 'An If-Match header, when sent, must equal the stored version, otherwise 409.',
    auth: true,
    writes: true,
    params: idParamsSchema,
    response: successSchema,
    examples: { response: successExample },
    errors: [403, 404, 409],
    async handle({ params, caller, headers }) {
      const rule = await visibleRule(params.id, caller);
      const expected = ifMatchVersion(headers);
      requireVersion(rule, 'notification', expected);
      await deleteRule(rule.id, rule.version, rule.parentId).catch(staleAsConflict);
      return { body: 'Success' };
    },
  }),

  defineRoute({
    method: 'PUT',
    path: '/api/v3/notifications/prolongation',
    operationId: 'prolongNotificationRules',
    tag: 'notifications',
    summary: 'Prolong notification rules',
    description:
      "Body { ids, days? }: adds `days` (default: each rule's validity) to each rule's expiry, counted from now for an expired rule. " +
      'A validity never ends more than 90 days after now (after its activation time for a rule that is not yet activated): a request ' +
      'that would pass that cap is clamped to it and answered with clamped: true; an expiry is never moved earlier. ' +
      'All rules are prolonged or none. Answers [{ id, expiresAt, clamped }].',
    auth: true,
    writes: true,
    body: prolongationBodySchema,
    response: prolongationResponseSchema,
    examples: { body: prolongationExample, response: prolongationAnswerExample },
    errors: [403, 404, 409],
    async handle({ body, caller, now }) {
      const rules = [];
      for (const id of body.ids) rules.push(await visibleRule(id, caller));
      const updatedAt = new Date(now).toISOString();
      const changes = rules.map((rule) => ({
        id: rule.id,
        expectedVersion: rule.version,
        updatedAt,
        ...prolong(rule, body.days ?? rule.validity, now),
      }));
      await setRuleExpiries(changes).catch(staleAsConflict);
      return { body: changes.map(({ id, expiresAt, clamped }) => ({ id, expiresAt, clamped })) };
    },
  }),
];
