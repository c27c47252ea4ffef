import type { StoredRule } from '../schemas/notification';
import { chainOf, type EscalationChain } from './escalation-chain';
import { commonSettings, type CommonSettingsShape } from './settings';

/** The rule's escalation chain, read from its settings (escalation-chain.ts: chainOf); null when it does not escalate. */
export function ruleChain(rule: Pick<StoredRule, 'settings'>): EscalationChain | null {
  const read = <Key extends keyof CommonSettingsShape>(key: Key) => commonSettings()[key].safeParse(rule.settings[key]).data;
  return chainOf({
    escalation: read('escalation') as EscalationChain['levels'] | undefined,
    escalationRepeat: read('escalationRepeat') as number | undefined,
    escalateAfter: read('escalateAfter') as number | undefined,
    escalateUserIds: read('escalateUserIds') as string[] | undefined,
    escalateTelegrams: read('escalateTelegrams') as string[] | undefined,
    escalateEmails: read('escalateEmails') as string[] | undefined,
  });
}
