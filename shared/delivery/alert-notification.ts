import type { Alert } from '../schemas/alert';
import type { Language } from '../schemas/directory';
import type { StoredRule } from '../schemas/notification';
import { renderNotification, type RenderedNotification } from './render';
import { buildTemplateData } from './template-data';

/**
 * An alert as its notifications say it, per language: the rule's own wording (`settings.messageSubject`,
 * `settings.messageTemplate`) or the event kind's template, with times in the rule's timezone. Each language is
 * rendered once. Delivery sends this; the preview answers its e-mail text.
 */
export function alertNotification(
  alert: Pick<Alert, 'event' | 'ruleName' | 'vehicleId'>,
  rule: Pick<StoredRule, 'settings' | 'timezone'>,
  vehicleName: string,
): (language: Language) => RenderedNotification {
  const override = {
    subject: rule.settings.messageSubject?.trim() || undefined,
    body: rule.settings.messageTemplate?.trim() || undefined,
  };
  const rendered = new Map<Language, RenderedNotification>();
  return (language) => {
    let notification = rendered.get(language);
    if (!notification) {
      const data = buildTemplateData({ alert, vehicleName, timezone: rule.timezone, language });
      notification = renderNotification({ kind: alert.event.kind, language, data, override });
      rendered.set(language, notification);
    }
    return notification;
  };
}
