import type { AlertState, DeliveryStatus, LIFECYCLE_CHANNELS, Severity } from '../schemas/alert';
import type { Channel } from '../channels/outcome';
import type { PageLanguage } from './link-page';

/** The words of the alert page (`templates/pages/alert.eta`), per language of the link. */
export interface AlertPageWords {
  when: string;
  ruleTime: string;
  raised: string;
  where: string;
  openStreetMap: string;
  noPosition: string;
  vehicle: string;
  lastPosition: string;
  noLastPosition: string;
  lastPositionAt: (position: string, at: string, speed: string) => string;
  rule: string;
  ruleName: string;
  ruleType: string;
  state: string;
  notStored: string;
  states: Record<AlertState, string>;
  via: Record<(typeof LIFECYCLE_CHANNELS)[number], string>;
  entry: (state: string, by: string, via: string, at: string) => string;
  notified: string;
  nobody: string;
  channels: Record<Channel, string>;
  statuses: Record<DeliveryStatus['status'], string>;
  preferences: Record<NonNullable<DeliveryStatus['reason']>, string>;
  escalation: string;
  escalated: (at: string) => string;
  escalates: (at: string) => string;
  actions: string;
  comment: string;
  acknowledge: string;
  close: string;
  needUser: string;
  noActions: string;
  severities: Record<Severity, string>;
  /** What a POST did, or why it did nothing. */
  done: { acknowledged: string; closed: string };
  already: { acknowledged: (by: string, at: string) => string; closed: (by: string, at: string) => string };
  refusedState: (state: string) => string;
  notStoredAction: string;
  userRefused: string;
  limit: string;
}

export const ALERT_PAGE_WORDS: Record<PageLanguage, AlertPageWords> = {
  en: {
    when: 'When',
    ruleTime: "In the rule's time zone",
    raised: 'Raised',
    where: 'Where',
    openStreetMap: 'open in OpenStreetMap',
    noPosition: 'The event carries no position.',
    vehicle: 'Vehicle',
    lastPosition: 'Last known position',
    noLastPosition: 'No position reported yet.',
    lastPositionAt: (position, at, speed) => `${position}, reported ${at}${speed ? `, ${speed} km/h` : ''}`,
    rule: 'Rule',
    ruleName: 'Name',
    ruleType: 'Type',
    state: 'State',
    notStored: 'Not kept in the history: this alert has no states to acknowledge or close.',
    states: { open: 'open', acknowledged: 'acknowledged', cleared: 'cleared: its episode ended', closed: 'closed' },
    via: { api: 'API', telegram: 'Telegram', email: 'e-mail link', push: 'push notification', sms: 'SMS link', system: 'automatically' },
    entry: (state, by, via, at) => `${state} by ${by} (${via}), ${at}`,
    notified: 'Notified',
    nobody: 'Nobody has been notified yet.',
    channels: { email: 'E-mail', telegram: 'Telegram', push: 'Push', webhook: 'Webhook', sms: 'SMS' },
    statuses: { sent: 'sent', failed: 'failed', skipped: 'skipped', held: 'held until the address confirms', digest: 'waiting for a digest' },
    preferences: { quietHours: "the recipient's quiet hours", minSeverity: "below the recipient's least severity" },
    escalation: 'Escalation',
    escalated: (at) => `Escalated ${at}, as nobody had acknowledged it, to:`,
    escalates: (at) => `Escalates ${at} unless someone acknowledges it first.`,
    actions: 'Actions',
    comment: 'Comment (optional)',
    acknowledge: 'Acknowledge',
    close: 'Close',
    needUser: 'Closing and muting need a fleetwatch user; this link went to an address outside fleetwatch.',
    noActions: 'Nothing is left to do here.',
    severities: { critical: 'CRITICAL', warning: 'WARNING', info: 'INFO' },
    done: { acknowledged: 'Acknowledged.', closed: 'Closed.' },
    already: {
      acknowledged: (by, at) => `Already acknowledged by ${by} at ${at}; nothing changed.`,
      closed: (by, at) => `Already closed by ${by} at ${at}; nothing changed.`,
    },
    refusedState: (state) => `This alert is ${state}; nothing changed.`,
    notStoredAction: 'This alert is not kept in the history, so it cannot be acknowledged or closed.',
    userRefused: 'Your fleetwatch user can no longer act on alerts of this client (disabled, read-only, or moved).',
    limit: 'The client already holds as many silences as it may; end or delete one in fleetwatch first.',
  },
  ru: {
    when: 'Когда',
    ruleTime: 'В часовом поясе правила',
    raised: 'Создано',
    where: 'Где',
    openStreetMap: 'открыть в OpenStreetMap',
    noPosition: 'У события нет координат.',
    vehicle: 'Объект',
    lastPosition: 'Последнее известное положение',
    noLastPosition: 'Положение ещё не поступало.',
    lastPositionAt: (position, at, speed) => `${position}, получено ${at}${speed ? `, ${speed} км/ч` : ''}`,
    rule: 'Правило',
    ruleName: 'Название',
    ruleType: 'Тип',
    state: 'Состояние',
    notStored: 'Не хранится в истории: у этого уведомления нет состояний, его нельзя принять в работу или закрыть.',
    states: { open: 'открыто', acknowledged: 'принято в работу', cleared: 'снято: событие закончилось', closed: 'закрыто' },
    via: { api: 'API', telegram: 'Telegram', email: 'ссылка из письма', push: 'push-уведомление', sms: 'ссылка из SMS', system: 'автоматически' },
    entry: (state, by, via, at) => `${state}: ${by} (${via}), ${at}`,
    notified: 'Кому отправлено',
    nobody: 'Уведомление ещё никому не отправлено.',
    channels: { email: 'E-mail', telegram: 'Telegram', push: 'Push', webhook: 'Webhook', sms: 'SMS' },
    statuses: {
      sent: 'отправлено',
      failed: 'ошибка',
      skipped: 'пропущено',
      held: 'ждёт подтверждения адреса',
      digest: 'ждёт сводки',
    },
    preferences: { quietHours: 'тихие часы получателя', minSeverity: 'ниже важности, выбранной получателем' },
    escalation: 'Эскалация',
    escalated: (at) => `Эскалировано ${at}, так как никто не принял уведомление в работу, получателям:`,
    escalates: (at) => `Будет эскалировано ${at}, если никто не примет его в работу раньше.`,
    actions: 'Действия',
    comment: 'Комментарий (необязательно)',
    acknowledge: 'Принять в работу',
    close: 'Закрыть',
    needUser: 'Закрыть и заглушить может только пользователь fleetwatch; эта ссылка отправлена на внешний адрес.',
    noActions: 'Здесь больше нечего делать.',
    severities: { critical: 'КРИТИЧНО', warning: 'ВНИМАНИЕ', info: 'ИНФО' },
    done: { acknowledged: 'Принято в работу.', closed: 'Закрыто.' },
    already: {
      acknowledged: (by, at) => `Уже принято в работу: ${by}, ${at}; ничего не изменилось.`,
      closed: (by, at) => `Уже закрыто: ${by}, ${at}; ничего не изменилось.`,
    },
    refusedState: (state) => `Это уведомление ${state}; ничего не изменилось.`,
    notStoredAction: 'Это уведомление не хранится в истории, его нельзя принять в работу или закрыть.',
    userRefused: 'Ваш пользователь fleetwatch больше не может работать с уведомлениями этого клиента (отключён, только чтение или перенесён).',
    limit: 'У клиента уже столько тишин, сколько можно; сначала завершите или удалите одну в fleetwatch.',
  },
  az: {
    when: 'Nə vaxt',
    ruleTime: 'Qaydanın saat qurşağında',
    raised: 'Yaradılıb',
    where: 'Harada',
    openStreetMap: 'OpenStreetMap-də aç',
    noPosition: 'Hadisənin koordinatları yoxdur.',
    vehicle: 'Nəqliyyat vasitəsi',
    lastPosition: 'Son məlum mövqe',
    noLastPosition: 'Hələ mövqe gəlməyib.',
    lastPositionAt: (position, at, speed) => `${position}, ${at} alınıb${speed ? `, ${speed} km/saat` : ''}`,
    rule: 'Qayda',
    ruleName: 'Ad',
    ruleType: 'Növ',
    state: 'Vəziyyət',
    notStored: 'Tarixçədə saxlanmır: bu bildirişin vəziyyətləri yoxdur, onu qəbul etmək və ya bağlamaq olmaz.',
    states: { open: 'açıq', acknowledged: 'qəbul edilib', cleared: 'götürülüb: hadisə bitib', closed: 'bağlanıb' },
    via: { api: 'API', telegram: 'Telegram', email: 'məktub keçidi', push: 'push bildiriş', sms: 'SMS keçidi', system: 'avtomatik' },
    entry: (state, by, via, at) => `${state}: ${by} (${via}), ${at}`,
    notified: 'Kimə göndərilib',
    nobody: 'Bildiriş hələ heç kimə göndərilməyib.',
    channels: { email: 'E-poçt', telegram: 'Telegram', push: 'Push', webhook: 'Webhook', sms: 'SMS' },
    statuses: {
      sent: 'göndərilib',
      failed: 'xəta',
      skipped: 'buraxılıb',
      held: 'ünvanın təsdiqini gözləyir',
      digest: 'xülasəni gözləyir',
    },
    preferences: { quietHours: 'alıcının sakit saatları', minSeverity: 'alıcının seçdiyi vaciblikdən aşağı' },
    escalation: 'Eskalasiya',
    escalated: (at) => `${at} eskalasiya edilib, çünki heç kim qəbul etməyib, alıcılar:`,
    escalates: (at) => `Əvvəl heç kim qəbul etməsə, ${at} eskalasiya ediləcək.`,
    actions: 'Əməliyyatlar',
    comment: 'Şərh (istəyə bağlı)',
    acknowledge: 'Qəbul et',
    close: 'Bağla',
    needUser: 'Bağlamaq və susdurmaq yalnız fleetwatch istifadəçisinə mümkündür; bu keçid xarici ünvana göndərilib.',
    noActions: 'Burada başqa ediləcək bir şey yoxdur.',
    severities: { critical: 'KRİTİK', warning: 'DİQQƏT', info: 'MƏLUMAT' },
    done: { acknowledged: 'Qəbul edildi.', closed: 'Bağlandı.' },
    already: {
      acknowledged: (by, at) => `Artıq qəbul edilib: ${by}, ${at}; heç nə dəyişmədi.`,
      closed: (by, at) => `Artıq bağlanıb: ${by}, ${at}; heç nə dəyişmədi.`,
    },
    refusedState: (state) => `Bu bildiriş ${state}; heç nə dəyişmədi.`,
    notStoredAction: 'Bu bildiriş tarixçədə saxlanmır, onu qəbul etmək və ya bağlamaq olmaz.',
    userRefused: 'fleetwatch istifadəçiniz artıq bu müştərinin bildirişləri ilə işləyə bilməz (söndürülüb, yalnız oxuma və ya köçürülüb).',
    limit: 'Müştərinin artıq icazə verilən qədər susması var; əvvəlcə fleetwatch-da birini bitirin və ya silin.',
  },
};
