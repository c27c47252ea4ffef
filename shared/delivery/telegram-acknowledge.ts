import { Composer, type Context } from 'grammy';
import type { Alert } from '../schemas/alert';
import type { StoredUser } from '../schemas/directory';
import { transitionAlert, type TransitionResult } from '../store/alerts/alert-lifecycle';
import { getUser } from '../store/directory-store';
import { chatOwner } from '../store/telegram-links';
import { TELEGRAM_ACKNOWLEDGE_PREFIX } from './acknowledge-action';
import { ClientTree } from './client-tree';
import { formatEventTime } from './format-time';
import { renderLifecycleText } from './render';

/**
 * The acknowledge button under an alert's Telegram message. Its data names the alert only; whoever presses it
 * is checked here: their own chat must be linked to an enabled fleetwatch user with write rights whose client
 * is the alert's client or a client above it. Anyone else gets an answer saying why and changes nothing. On
 * success, and when the alert was acknowledged before, the message is edited to say by whom and when, and the
 * button goes.
 */
type Refusal = 'notLinked' | 'outOfScope' | 'readOnly' | 'missing' | 'ended';
type Answer = Refusal | 'acknowledged' | 'already';

const ANSWERS: Record<'en' | 'ru' | 'az', Record<Answer, string>> = {
  en: {
    notLinked: 'Link your own Telegram chat to your fleetwatch user (/start with a link code) to acknowledge alerts here.',
    outOfScope: 'Your fleetwatch user cannot acknowledge alerts of this client.',
    readOnly: 'Your fleetwatch user has read-only rights and cannot acknowledge alerts.',
    missing: 'This alert no longer exists in fleetwatch.',
    ended: 'This alert is already cleared or closed.',
    acknowledged: 'Acknowledged.',
    already: 'This alert was already acknowledged.',
  },
  ru: {
    notLinked: 'Привяжите свой чат Telegram к пользователю fleetwatch (/start с кодом привязки), чтобы принимать уведомления в работу здесь.',
    outOfScope: 'Ваш пользователь fleetwatch не может принимать в работу уведомления этого клиента.',
    readOnly: 'У вашего пользователя fleetwatch права только на чтение; принять уведомление в работу нельзя.',
    missing: 'Этого уведомления в fleetwatch больше нет.',
    ended: 'Это уведомление уже снято или закрыто.',
    acknowledged: 'Принято в работу.',
    already: 'Это уведомление уже принято в работу.',
  },
  az: {
    notLinked: 'Bildirişləri burada qəbul etmək üçün öz Telegram söhbətinizi fleetwatch istifadəçinizə bağlayın (/start və bağlama kodu).',
    outOfScope: 'fleetwatch istifadəçiniz bu müştərinin bildirişlərini qəbul edə bilməz.',
    readOnly: 'fleetwatch istifadəçinizin yalnız oxuma hüququ var; bildirişi qəbul edə bilməz.',
    missing: 'Bu bildiriş artıq fleetwatch-da yoxdur.',
    ended: 'Bu bildiriş artıq götürülüb və ya bağlanıb.',
    acknowledged: 'Qəbul edildi.',
    already: 'Bu bildiriş artıq qəbul edilib.',
  },
};

function answerText(ctx: Context, answer: Answer): string {
  const code = ctx.from?.language_code?.slice(0, 2);
  return ANSWERS[code === 'ru' || code === 'az' ? code : 'en'][answer];
}

/** The fleetwatch user behind the person who pressed, when their own chat is linked to one still enabled. */
export async function presser(ctx: Context): Promise<StoredUser | null> {
  const userId = ctx.from ? await chatOwner(String(ctx.from.id)) : null;
  const user = userId ? await getUser(userId) : null;
  return user?.isEnabled ? user : null;
}

/** The message, as it was, with a line saying who acknowledged the alert and when; its formatting is kept. */
async function showAcknowledgement(ctx: Context, alert: Alert, user: StoredUser): Promise<void> {
  const message = ctx.callbackQuery?.message;
  const acknowledgement = alert.acknowledgement;
  // a message older than 48 hours comes without its text: only the answer tells
  if (!message || !('text' in message) || !message.text || !acknowledgement) return;
  const line = renderLifecycleText('acknowledged', user.language, {
    by: acknowledgement.by,
    at: formatEventTime(acknowledgement.at, 0, user.language),
    comment: acknowledgement.comment ?? '',
  }).subject;
  await ctx.editMessageText(`${message.text}\n\n${line}`, { ...(message.entities ? { entities: message.entities } : {}) });
}

function answerOf(result: TransitionResult): Answer {
  if (result.outcome === 'missing') return 'missing';
  if (result.outcome === 'refused') return 'ended';
  return result.outcome === 'changed' ? 'acknowledged' : 'already';
}

export function telegramAcknowledge(options: { now?: () => number } = {}): Composer<Context> {
  const now = options.now ?? Date.now;
  const composer = new Composer<Context>();
  composer.callbackQuery(new RegExp(`^${TELEGRAM_ACKNOWLEDGE_PREFIX}([0-9a-f]{32})$`), async (ctx) => {
    const alertId = ctx.match[1]!;
    const user = await presser(ctx);
    if (!user) return void (await ctx.answerCallbackQuery({ text: answerText(ctx, 'notLinked'), show_alert: true }));
    if (user.isReadOnly) return void (await ctx.answerCallbackQuery({ text: answerText(ctx, 'readOnly'), show_alert: true }));
    const tree = new ClientTree();
    let outOfScope = false;
    const result = await transitionAlert(alertId, { to: 'acknowledged', by: user.login, via: 'telegram', now: now() }, async (alert) => {
      outOfScope = !(await tree.isWithin(alert.parentId, user.parentId));
      return !outOfScope;
    });
    const answer = outOfScope ? 'outOfScope' : answerOf(result);
    if (result.outcome === 'changed' || result.outcome === 'already') await showAcknowledgement(ctx, result.alert, user);
    const by = result.outcome === 'already' && result.alert.acknowledgement ? ` (${result.alert.acknowledgement.by})` : '';
    await ctx.answerCallbackQuery({ text: `${answerText(ctx, answer)}${by}`, show_alert: answer !== 'acknowledged' && answer !== 'already' });
  });
  return composer;
}
