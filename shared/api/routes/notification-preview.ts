import { maxEventAgeConfig, vehicleClockConfig } from '../../config';
import { DEFAULT_LANGUAGE } from '../../delivery/targets';
import { alertNotification } from '../../delivery/alert-notification';
import { arrivalOf, previewRule } from '../../pipeline/public/preview';
import { dynamoRuleRecords } from '../../store/rule-records';
import { RULE_EVALUATORS } from '../../rules/registry';
import { isEventKind } from '../../rules/event-kinds';
import { timesFromTheFuture, type TerminalMessage } from '../../schemas/terminal-message';
import type { NotificationBody, StoredRule } from '../../schemas/notification';
import { getAgent, getUser, getUsers, getVehicles } from '../../store/directory-store';
import { preferenceVerdict } from '../../delivery/recipient-preferences';
import { severityOf } from '../../rules/severity';
import type { StoredUser } from '../../schemas/directory';
import type { PreferenceChannel } from '../../schemas/preferences';
import type { AlertItem } from '../../store/alerts/alerts-store';
import { clientAndAncestors } from '../../store/directory-store';
import { ruleCovers } from '../../store/rule-coverage';
import { newRuleRecord } from '../../store/rules-store';
import { silenceItemsOfClient } from '../../store/silences-store';
import { checkedRule } from '../checked-rule';
import { ApiError, validationError, type Issue } from '../errors';
import { previewAnswerExample, previewExample } from '../examples';
import { previewBodySchema, previewResponseSchema, type PreviewAlert, type PreviewResponse } from '../preview-schemas';
import { defineRoute } from '../route';

/** The id a previewed rule is evaluated under; it is never stored, and its alerts are never written. */
const PREVIEW_RULE_ID = 1;
const DAY_MS = 86_400_000;

/** The rule's own issues, named under `rule.` as they sit in the preview's body. */
async function underRule<T>(check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof ApiError && error.issues) throw validationError(error.issues.map((issue) => ({ ...issue, path: `rule.${issue.path}` })));
    throw error;
  }
}

/**
 * 400 for a message of a vehicle the rule does not watch (its vehicleIds, or for a scoped rule the vehicles of its
 * client or client tree), or one its server would refuse as from the future.
 */
function messageIssues(messages: readonly TerminalMessage[], rule: NotificationBody, owners: ReadonlyMap<number, readonly string[]>): Issue[] {
  const issues: Issue[] = [];
  messages.forEach((message, index) => {
    if (!ruleCovers(rule, message.vehicleId, owners.get(message.vehicleId) ?? []))
      issues.push({ path: `messages.${index}.vehicleId`, message: `vehicle ${message.vehicleId} is not in the rule's scope` });
    for (const field of timesFromTheFuture(message, arrivalOf(message)))
      issues.push({
        path: `messages.${index}.${field}`,
        message: `${field} is after serverTime beyond the tolerance: evaluation refuses such a message`,
      });
  });
  return issues;
}

/**
 * A stored silence as it applies to the previewed rule, which is evaluated under PREVIEW_RULE_ID: one naming the
 * rule's own id (a stored rule previewed again) names the previewed rule; one naming only other rules none (0).
 */
function asPreviewed(item: Record<string, unknown>, ruleId: number | undefined): Record<string, unknown> {
  const ruleIds = Array.isArray(item.ruleIds) ? (item.ruleIds as unknown[]) : [];
  if (ruleIds.length === 0) return item;
  return { ...item, ruleIds: ruleId !== undefined && ruleIds.includes(ruleId) ? [PREVIEW_RULE_ID] : [0] };
}

/** The rule as evaluation would hold it, in force from the first message to past `until`. */
function ruleInForce(owned: NotificationBody, parentName: string, from: number, until: number): StoredRule {
  return {
    ...newRuleRecord(owned, parentName, from),
    id: PREVIEW_RULE_ID,
    active: true,
    activationMode: 0,
    activationTime: null,
    validFrom: new Date(from).toISOString(),
    expiresAt: new Date(until + DAY_MS).toISOString(),
  };
}

/** The channels of a recipient user the rule uses, where the user's preferences apply. */
const preferenceChannels = (rule: NotificationBody): PreferenceChannel[] => [
  ...(rule.toEmail ? (['email'] as const) : []),
  ...(rule.toTelegram ? (['telegram'] as const) : []),
  ...(rule.toMobile ? (['push'] as const) : []),
];

/** What each enabled recipient's preferences would do to the alert when raised at `at` (delivery's preferenceVerdict). */
function preferencesFor(
  alert: AlertItem,
  recipients: readonly StoredUser[],
  channels: readonly PreferenceChannel[],
  at: number,
): PreviewAlert['preferences'] {
  const severity = severityOf(alert);
  return recipients.flatMap((user) =>
    channels.flatMap((channel) => {
      const verdict = preferenceVerdict(user, channel, severity, at);
      if (!verdict) return [];
      const until = verdict.reason === 'quietHours' ? { until: new Date(verdict.until).toISOString() } : {};
      return [{ userId: user.id, login: user.login, channel, reason: verdict.reason, ...until }];
    }),
  );
}

export const notificationPreviewRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v3/notifications/preview',
    operationId: 'previewNotificationRule',
    tag: 'notifications',
    summary: 'Try a notification rule on messages, without storing or sending anything',
    description:
      'Body { rule, messages, until? }: runs the rule over the messages through the same path as evaluation (rule compilation, ' +
      "evaluators, the stale-message clock, the schedule, the zone condition, the maintenance silences of the vehicles' clients, the age " +
      'of each message (maxEventAge, at its arrival or at `evaluatedAt`), and the sweep for connection loss up to `until`), with the vehicles starting ' +
      "from no state. Answers the alerts it would raise, each with the text of its e-mail, its severity and what its recipients' preferences " +
      '(quiet hours, least severity per channel) would hold or skip, and what it would not raise and why. Writes, ' +
      'sends and journals nothing, so read-only users may call it. The rule is checked as PUT checks it (400 naming rule.<field>, 404 ' +
      'for a foreign parentId); a message must be of a vehicle the rule watches, in its vehicleIds or its scope (400 naming ' +
      'messages.<i>.vehicleId); at most ' +
      '10,000 messages (400 naming messages).',
    auth: true,
    writes: false,
    body: previewBodySchema,
    response: previewResponseSchema,
    examples: { body: previewExample, response: previewAnswerExample },
    errors: [404, 503],
    async handle({ body, caller, now }) {
      const owned = await underRule(() => checkedRule(body.rule, caller));
      const { messages } = body;
      const vehicles = await getVehicles([...new Set(messages.map((message) => message.vehicleId))]);
      const chains = new Map<string, Promise<string[]>>();
      const chainOf = (clientId: string) => chains.get(clientId) ?? chains.set(clientId, clientAndAncestors(clientId)).get(clientId)!;
      const owners = new Map(await Promise.all(vehicles.map(async (vehicle) => [vehicle.vehicleId, await chainOf(vehicle.parentId)] as const)));
      const issues = messageIssues(messages, owned, owners);
      const arrivals = messages.map(arrivalOf);
      const newest = arrivals.length > 0 ? Math.max(...arrivals) : now;
      const until = body.until === undefined ? newest : Date.parse(body.until);
      if (until < newest) issues.push({ path: 'until', message: 'until is before the arrival of a message' });
      if (issues.length > 0) throw validationError(issues);

      const rule = ruleInForce(owned, (await getAgent(owned.parentId))?.name ?? '', Math.min(now, ...arrivals), until);
      const preview = await previewRule({
        rule,
        owners,
        messages,
        until,
        zonesById: dynamoRuleRecords.zonesById,
        silencesOfClient: async (clientId, at) => (await silenceItemsOfClient(clientId, at)).map((item) => asPreviewed(item, body.rule.id)),
        evaluatorFor: (type) => RULE_EVALUATORS[type],
        vehicleClock: vehicleClockConfig(),
        maxEventAgeSeconds: maxEventAgeConfig(),
        ...(body.evaluatedAt === undefined ? {} : { evaluatedAt: Date.parse(body.evaluatedAt) }),
      });

      // side addresses and the rule's own chats are written in the owner's language (delivery's planDelivery)
      const language = (owned.userId ? await getUser(owned.userId) : null)?.language ?? DEFAULT_LANGUAGE;
      const names = new Map(vehicles.map((vehicle) => [vehicle.vehicleId, vehicle.name]));
      const order = (user: StoredUser) => owned.recipientIds.indexOf(user.id);
      // in the rule's order of recipients
      const recipients = (await getUsers(owned.recipientIds)).filter((user) => user.isEnabled).sort((a, b) => order(a) - order(b));
      const channels = preferenceChannels(owned);
      const judgedAt = (alert: AlertItem) => Date.parse(body.evaluatedAt ?? alert.createdAt);
      const answer: PreviewResponse = {
        alerts: preview.alerts.flatMap((alert) =>
          isEventKind(alert.event.kind)
            ? [
                {
                  vehicleId: alert.vehicleId,
                  time: new Date(alert.event.time).toISOString(),
                  type: rule.type,
                  event: alert.event.kind,
                  text: alertNotification(alert, rule, names.get(alert.vehicleId) ?? '')(language).text,
                  severity: severityOf(alert),
                  preferences: preferencesFor(alert, recipients, channels, judgedAt(alert)),
                },
              ]
            : [],
        ),
        suppressed: preview.suppressed.map((entry) => ({ ...entry, time: new Date(entry.time).toISOString() })),
      };
      return { body: answer };
    },
  }),
];
