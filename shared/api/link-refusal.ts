import { ALERT_LINK_TTL_DAYS } from '../auth/alert-link-token';
import { linkPage, PAGE_LANGUAGE, type PageLanguage } from './link-page';
import type { Reply } from './route';

/**
 * The page of an alert's link that leads nowhere, saying why in plain words: a token that was altered or not made
 * by fleetwatch (404, in English: its language cannot be trusted), one whose week is over (410, in its own
 * language), an alert that is gone (404), or an SMS's short link that is unknown or whose week is over (404, in
 * English: nothing is known about it).
 */
export type LinkRefusal = 'invalid' | 'expired' | 'missing' | 'unknownShort';

const STATUS: Record<LinkRefusal, number> = { invalid: 404, expired: 410, missing: 404, unknownShort: 404 };

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
    unknownShort: {
      title: 'This link is not valid',
      text: `This link is not valid, or it has expired: SMS links work for ${ALERT_LINK_TTL_DAYS} days after the alert was sent. Check that it was copied whole, or open the alert in fleetwatch instead.`,
    },
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
    unknownShort: {
      title: 'Ссылка недействительна',
      text: `Эта ссылка недействительна или её срок истёк: ссылки из SMS действуют ${ALERT_LINK_TTL_DAYS} дней после отправки. Проверьте, что она скопирована целиком, или откройте уведомление в fleetwatch.`,
    },
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
    unknownShort: {
      title: 'Keçid etibarsızdır',
      text: `Bu keçid etibarsızdır və ya vaxtı bitib: SMS keçidləri göndərildikdən sonra ${ALERT_LINK_TTL_DAYS} gün işləyir. Keçidin tam köçürüldüyünü yoxlayın və ya bildirişi fleetwatch-da açın.`,
    },
  },
};

export function refusedLink(refusal: LinkRefusal, language?: 1 | 2 | 3): Reply {
  const lang = refusal === 'invalid' || refusal === 'unknownShort' || language === undefined ? 'en' : PAGE_LANGUAGE[language];
  return { status: STATUS[refusal], body: null, html: linkPage({ lang, ...WORDS[lang][refusal] }) };
}
