import type * as z from 'zod';
import type { NotificationBody, StoredRule } from '../schemas/notification';
import { withAddressLocated } from './address-location';
import { checkRuleSize } from './limit-checks';
import type { Caller } from './route';
import { checkRuleReferences } from './rule-references';
import type { notificationCreateBodySchema } from './schemas';

/** A rule body as the API takes it: the record's fields, and the read-only fields of its answer. */
type RuleRequest = z.infer<typeof notificationCreateBodySchema>;

/**
 * The checks every rule body passes, whether it is stored (POST, PUT) or only tried (preview): its client in the
 * caller's scope (else 404), the read-only answer fields dropped, the caller as owner when none is named, an
 * address rule's coordinates found by the geocoder, the size limit, and every reference in scope (400 naming
 * each; on a replace, `stored`'s recipients and chats the body keeps are not judged again, see checkRuleReferences).
 * Returns the rule as it would be stored.
 */
export async function checkedRule(body: RuleRequest, caller: Caller, stored?: StoredRule): Promise<NotificationBody> {
  await caller.scope.require(body.parentId, `client ${body.parentId}`);
  const { id: _id, version: _version, parentName: _parentName, expiresAt: _expiresAt, problems: _problems, ...fields } = body;
  const owned: NotificationBody = await withAddressLocated({ ...fields, userId: fields.userId ?? caller.user.id });
  checkRuleSize(owned);
  await checkRuleReferences(owned, caller.scope, stored);
  return owned;
}
