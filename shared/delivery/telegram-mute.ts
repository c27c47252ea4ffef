import { Composer, type Context } from 'grammy';
import { getAlert } from '../store/alerts/alert-lifecycle';
import { ClientTree } from './client-tree';
import { TELEGRAM_MUTE_PREFIXES } from './acknowledge-action';
import { muteFromAlert, mutedText, type MuteAction } from './mute-alert';
import { presser } from './telegram-acknowledge';

/**
 * The mute buttons under an alert's Telegram message: its vehicle for an hour, its rule until tomorrow 08:00
 * (mute-alert.ts). Like the acknowledge button, the data names the alert only, and whoever presses is checked
 * here: their own chat linked to an enabled fleetwatch user with write rights whose client is the alert's or one
 * above it. Anyone else is told why, and nothing is written. The answer says who muted and until when, the same
 * for a second press.
 */
type Refusal = 'notLinked' | 'outOfScope' | 'readOnly' | 'missing' | 'limit';

const REFUSALS: Record<'en' | 'ru' | 'az', Record<Refusal, string>> = {
  en: {
    notLinked: 'Link your own Telegram chat to your fleetwatch user (/start with a link code) to mute alerts here.',
    outOfScope: 'Your fleetwatch user cannot mute alerts of this client.',
    readOnly: 'Your fleetwatch user has read-only rights and cannot mute alerts.',
    missing: 'This alert no longer exists in fleetwatch.',
    limit: 'The client already holds as many silences as it may; end or delete one in fleetwatch first.',
  },
  ru: {
    notLinked: 'Привяжите свой чат Telegram к пользователю fleetwatch (/start с кодом привязки), чтобы заглушать уведомления здесь.',
    outOfScope: 'Ваш пользователь fleetwatch не может заглушать уведомления этого клиента.',
    readOnly: 'У вашего пользователя fleetwatch права только на чтение; заглушить уведомления нельзя.',
    missing: 'Этого уведомления в fleetwatch больше нет.',
    limit: 'У клиента уже столько тишин, сколько можно; сначала завершите или удалите одну в fleetwatch.',
  },
  az: {
    notLinked: 'Bildirişləri burada susdurmaq üçün öz Telegram söhbətinizi fleetwatch istifadəçinizə bağlayın (/start və bağlama kodu).',
    outOfScope: 'fleetwatch istifadəçiniz bu müştərinin bildirişlərini susdura bilməz.',
    readOnly: 'fleetwatch istifadəçinizin yalnız oxuma hüququ var; bildirişləri susdura bilməz.',
    missing: 'Bu bildiriş artıq fleetwatch-da yoxdur.',
    limit: 'Müştərinin artıq icazə verilən qədər susması var; əvvəlcə fleetwatch-da birini bitirin və ya silin.',
  },
};

function refusalText(ctx: Context, refusal: Refusal): string {
  const code = ctx.from?.language_code?.slice(0, 2);
  return REFUSALS[code === 'ru' || code === 'az' ? code : 'en'][refusal];
}

const ACTIONS: Record<string, MuteAction> = { [TELEGRAM_MUTE_PREFIXES.vehicle]: 'vehicle', [TELEGRAM_MUTE_PREFIXES.rule]: 'rule' };

export function telegramMute(options: { now?: () => number } = {}): Composer<Context> {
  const now = options.now ?? Date.now;
  const composer = new Composer<Context>();
  const prefixes = Object.keys(ACTIONS).join('|');
  composer.callbackQuery(new RegExp(`^(${prefixes})([0-9a-f]{32})$`), async (ctx) => {
    const refuse = (refusal: Refusal) => ctx.answerCallbackQuery({ text: refusalText(ctx, refusal), show_alert: true });
    const action = ACTIONS[ctx.match[1]!]!;
    const user = await presser(ctx);
    if (!user) return void (await refuse('notLinked'));
    if (user.isReadOnly) return void (await refuse('readOnly'));
    const alert = await getAlert(ctx.match[2]!);
    if (!alert) return void (await refuse('missing'));
    if (!(await new ClientTree().isWithin(alert.parentId, user.parentId))) return void (await refuse('outOfScope'));
    const result = await muteFromAlert(alert, action, user.login, 'telegram', now());
    if (result.outcome === 'limit') return void (await refuse('limit'));
    await ctx.answerCallbackQuery({ text: mutedText(result, user.language), show_alert: result.outcome === 'already' });
  });
  return composer;
}
