import type { Alert } from '../schemas/alert';
import type { Language } from '../schemas/directory';
import type { StoredRule } from '../schemas/notification';
import { renderNotification, type RenderedNotification } from './render';
import { buildTemplateData } from './template-data';
import { ESCALATED_KIND } from '../rules/event-kinds';
import { severityOf } from '../rules/severity';

/**
 * An alert as its notifications say it, per language: the rule's own wording (`settings.messageSubject`,
 * `settings.messageTemplate`; an escalation always has its template) or the event kind's template, with times in the rule's timezone,
 * marked with the alert's severity (the one it was raised with, not the rule's now). Each language is
 * rendered once. Delivery sends this; the preview answers its e-mail text.
 */
export function alertNotification(
  alert: Pick<Alert, 'event' | 'ruleName' | 'vehicleId' | 'ruleType' | 'severity'>,
  rule: Pick<StoredRule, 'settings' | 'timezone'>,
  vehicleName: string,
): (language: Language) => RenderedNotification {
  // an escalation has its own wording around the escalated alert's template
  const own = alert.event.kind !== ESCALATED_KIND;
  const override = {
    subject: (own && rule.settings.messageSubject?.trim()) || undefined,
    body: (own && rule.settings.messageTemplate?.trim()) || undefined,
  };
  const severity = severityOf(alert);
  const rendered = new Map<Language, RenderedNotification>();
  return (language) => {
    let notification = rendered.get(language);
    if (!notification) {
      const data = buildTemplateData({ alert, vehicleName, timezone: rule.timezone, language });
      notification = renderNotification({ kind: alert.event.kind, language, data, severity, override });
      rendered.set(language, notification);
    }
    return notification;
  };
}
