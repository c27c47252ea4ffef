import { ALERT_LINK_TTL_DAYS } from '../auth/alert-link-token';
import { linkPage, PAGE_LANGUAGE, type PageLanguage } from './link-page';
import type { Reply } from './route';

/**
 * The page of an alert's link that leads nowhere, saying why in plain words: a token that was altered or not made
 * by fleetwatch (404, in English: its language cannot be trusted), one whose week is over (410, in its own
 * language), or an alert that is gone (404).
 */
export type LinkRefusal = 'invalid' | 'expired' | 'missing';

const STATUS: Record<LinkRefusal, number> = { invalid: 404, expired: 410, missing: 404 };

const WORDS: Record<PageLanguage, Record<LinkRefusal, { title: string; text: string }>> = {
  en: {
    invalid: {
      title: 'This link is not valid',
      text: 'This link is not valid: it was changed, or fleetwatch did not make it. Open the alert in fleetwatch instead.',
    },
    expired: {
      title: 'This link has expired',
      text: `This link has expired: alert links work for ${ALERT_LINK_TTL_DAYS} days after the alert was sent. Open the alert in fleetwatch instead.`,
    },
    missing: { title: 'Alert not found', text: 'This alert no longer exists in fleetwatch.' },
  },
  ru: {
    invalid: {
      title: 'Ссылка недействительна',
      text: 'Эта ссылка недействительна: её изменили, или её создал не fleetwatch. Откройте уведомление в fleetwatch.',
    },
    expired: {
      title: 'Срок действия ссылки истёк',
      text: `Срок действия ссылки истёк: ссылки уведомлений действуют ${ALERT_LINK_TTL_DAYS} дней после отправки. Откройте уведомление в fleetwatch.`,
    },
    missing: { title: 'Уведомление не найдено', text: 'Этого уведомления в fleetwatch больше нет.' },
  },
  az: {
    invalid: {
      title: 'Keçid etibarsızdır',
      text: 'Bu keçid etibarsızdır: o dəyişdirilib və ya fleetwatch tərəfindən yaradılmayıb. Bildirişi fleetwatch-da açın.',
    },
    expired: {
      title: 'Keçidin vaxtı bitib',
      text: `Bu keçidin vaxtı bitib: bildiriş keçidləri göndərildikdən sonra ${ALERT_LINK_TTL_DAYS} gün işləyir. Bildirişi fleetwatch-da açın.`,
    },
    missing: { title: 'Bildiriş tapılmadı', text: 'Bu bildiriş artıq fleetwatch-da yoxdur.' },
  },
};

export function refusedLink(refusal: LinkRefusal, language?: 1 | 2 | 3): Reply {
  const lang = refusal === 'invalid' || language === undefined ? 'en' : PAGE_LANGUAGE[language];
  return { status: STATUS[refusal], body: null, html: linkPage({ lang, ...WORDS[lang][refusal] }) };
}
