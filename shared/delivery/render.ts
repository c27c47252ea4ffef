import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { Language } from '../schemas/directory';
import type { Severity } from '../schemas/alert';
import { escapeHtml } from '../channels/escape-html';
import type { TemplateData } from './template-data';
import { readConfig, templatesSchema } from '../config';
import { ESCALATED_KIND } from '../rules/event-kinds';

/**
 * Renders notifications from the eta templates in `TEMPLATES_DIR` (default: the source folder shared/templates).
 *
 * Layout of that folder: `<lang>/<event kind>.eta` per language (ru, en, az), with `<lang>/generic.eta` for a
 * kind without its own template, and `layout.eta` around the HTML e-mail. In a template the first line is the
 * subject and the rest the body. One template serves every format: `<%= %>` escapes for the format being
 * rendered (nothing for text, HTML entities for e-mail and Telegram's HTML mode), and the helpers
 * `it.b(text)` and `it.link(url, label)` write bold text and links in that format's markup.
 */
export type Format = 'text' | 'html' | 'telegram';

export interface RenderedNotification {
  subject: string;
  text: string;
  /** Complete HTML document for the e-mail. */
  html: string;
  /** Message for Telegram's parse_mode HTML. */
  telegram: string;
}

/** A rule's own wording (`settings.messageTemplate`, `settings.messageSubject`), with `{{placeholder}}` fields. */
export interface TemplateOverride {
  subject?: string;
  body?: string;
}

export const LANGUAGE_FOLDERS: Record<Language, string> = { 1: 'ru', 2: 'en', 3: 'az' };

export function templatesDir(): string {
  return readConfig(templatesSchema()).TEMPLATES_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../templates');
}

const escapers: Record<Format, (value: unknown) => string> = {
  text: (value) => String(value ?? ''),
  html: escapeHtml,
  telegram: escapeHtml,
};

function isSafeUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

const markup: Record<Format, { b(text: string): string; link(url: string, label: string): string }> = {
  text: {
    b: (text) => text,
    link: (url, label) => (label && label !== url ? `${label} (${url})` : url),
  },
  html: {
    b: (text) => `<b>${escapeHtml(text)}</b>`,
    link: (url, label) => (isSafeUrl(url) ? `<a href="${escapeHtml(url)}">${escapeHtml(label || url)}</a>` : escapeHtml(label || url)),
  },
  telegram: {
    b: (text) => `<b>${escapeHtml(text)}</b>`,
    link: (url, label) => (isSafeUrl(url) ? `<a href="${escapeHtml(url)}">${escapeHtml(label || url)}</a>` : escapeHtml(label || url)),
  },
};

const engines = new Map<string, Eta>();

function engine(format: Format): Eta {
  const dir = templatesDir();
  const key = `${format}:${dir}`;
  let eta = engines.get(key);
  if (!eta) {
    eta = new Eta({ views: dir, autoEscape: true, escapeFunction: escapers[format], cache: true, autoTrim: false });
    engines.set(key, eta);
  }
  return eta;
}

/** Template name for a kind in a language: the kind's own, else the generic one. */
export function templateName(kind: string, language: Language): string {
  const folder = LANGUAGE_FOLDERS[language];
  const own = /^[A-Za-z0-9]+$/.test(kind) && existsSync(path.join(templatesDir(), folder, `${kind}.eta`));
  return `./${folder}/${own ? kind : 'generic'}`;
}

function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function splitSubject(rendered: string): { subject: string; body: string } {
  const newline = rendered.indexOf('\n');
  if (newline < 0) return { subject: rendered.trim(), body: '' };
  return { subject: rendered.slice(0, newline).trim(), body: tidy(rendered.slice(newline + 1)) };
}

function renderFile(name: string, format: Format, data: TemplateData, extra: Record<string, string> = {}): { subject: string; body: string } {
  return splitSubject(engine(format).render(name, { ...data, ...extra, ...markup[format] }));
}

/**
 * A rule's own text: plain text with `{{name}}` and `{{values.name}}` placeholders (unknown names, and names the
 * data does not hold as its own, render empty).
 * All of it, the rule's words and the values, is escaped for the format, so a stray `<` cannot break
 * Telegram's HTML parsing or inject markup into the e-mail; the text is never evaluated as a template.
 */
export function fillPlaceholders(template: string, data: TemplateData, format: Format): string {
  const escape = escapers[format];
  const pattern = /\{\{\s*([A-Za-z]+)(?:\.([A-Za-z0-9_]+))?\s*\}\}/g;
  let result = '';
  let last = 0;
  for (const match of template.matchAll(pattern)) {
    const [placeholder, name, member] = match as unknown as [string, string, string | undefined];
    let value = '';
    if (member !== undefined) {
      // own properties only: `values.__proto__` or `values.constructor` must not reach the prototype chain
      value = name === 'values' && Object.hasOwn(data.values, member) ? (data.values[member] ?? '') : '';
    } else if (name !== 'values' && Object.hasOwn(data, name)) {
      value = String(data[name as keyof TemplateData] ?? '');
    }
    result += escape(template.slice(last, match.index)) + escape(value);
    last = match.index + placeholder.length;
  }
  return result + escape(template.slice(last));
}

function htmlDocument(subject: string, bodyHtml: string, language: Language): string {
  return tidy(
    engine('html').render('./layout', {
      lang: LANGUAGE_FOLDERS[language],
      subject,
      body: bodyHtml.replace(/\n/g, '<br>\n'),
    }),
  );
}

/** The sign before a severity's word at the top of a Telegram message. */
const SEVERITY_SIGNS: Record<Severity, string> = { critical: '🔴', warning: '🟠', info: '⚪' };

/**
 * How a notification shows its severity, the same for a template's text and a rule's own: the subject (e-mail,
 * push title) starts with the severity's word in brackets, `[CRITICAL]`, and the Telegram message with its sign
 * and word on a line of their own. The words are `<lang>/lifecycle/severity.eta`'s; one it leaves empty (info)
 * adds nothing, so routine alerts keep their subjects short.
 */
function severityMark(severity: Severity, language: Language): { subject(text: string): string; telegram(text: string): string } {
  const word = renderLifecycleText('severity', language, { severity }).subject;
  if (word === '') return { subject: (text) => text, telegram: (text) => text };
  return {
    subject: (text) => `[${word}] ${text}`,
    telegram: (text) => `${SEVERITY_SIGNS[severity]} ${markup.telegram.b(word)}\n${text}`,
  };
}

export function renderNotification(input: {
  kind: string;
  language: Language;
  data: TemplateData;
  severity: Severity;
  override?: TemplateOverride;
}): RenderedNotification {
  const { language, data, override } = input;
  const name = templateName(input.kind, language);
  const mark = severityMark(input.severity, language);
  // an escalation says why it came, then the escalated alert as its own template says it
  // (included from the escalation's own folder, so named relative to it)
  const extra: Record<string, string> =
    input.kind === ESCALATED_KIND ? { escalatedTemplate: `./${path.basename(templateName(data.values.escalatedKind ?? '', language))}` } : {};
  const text = renderFile(name, 'text', data, extra);
  const subject = mark.subject(override?.subject ? tidy(fillPlaceholders(override.subject, data, 'text')).split('\n')[0]! : text.subject);
  if (override?.body) {
    const body = (format: Format) => tidy(fillPlaceholders(override.body!, data, format));
    return {
      subject,
      text: body('text'),
      html: htmlDocument(subject, body('html'), language),
      telegram: mark.telegram(body('telegram')),
    };
  }
  return {
    subject,
    text: text.body,
    html: htmlDocument(subject, renderFile(name, 'html', data, extra).body, language),
    telegram: mark.telegram(renderFile(name, 'telegram', data, extra).body),
  };
}

/**
 * The texts of an alert's lifecycle (`<lang>/lifecycle/<name>.eta`): the acknowledge and mute actions, the link to
 * the alert's page, the pages that ask, what was done, a test alert, and the word that marks a severity.
 */
export type LifecycleText =
  'acknowledgeAction' | 'alertPageAction' | 'acknowledged' | 'testAlert' | 'muteVehicleAction' | 'muteRuleAction' | 'muted' | 'mutePage' | 'severity';

/** One lifecycle text in a language and format, its first line split off as the subject (a page's title). */
export function renderLifecycleText(
  name: LifecycleText,
  language: Language,
  data: Record<string, string>,
  format: Format = 'text',
): { subject: string; body: string } {
  return renderFile(`./${LANGUAGE_FOLDERS[language]}/lifecycle/${name}`, format, data as unknown as TemplateData);
}

/**
 * A page for people (`pages/<name>.eta`: the API's link pages), escaped as the HTML e-mail is; `it.b` and
 * `it.link` write HTML, and a link is written only for an http(s) address.
 */
export function renderPage(name: string, data: Record<string, unknown>): string {
  return engine('html').render(`./pages/${name}`, { ...data, ...markup.html });
}

/** A rule's test alert (`<lang>/lifecycle/testAlert.eta`), in every format; its subject and first line say TEST. */
export function renderTestNotification(language: Language, data: { rule: string; time: string }): RenderedNotification {
  const text = renderLifecycleText('testAlert', language, data);
  return {
    subject: text.subject,
    text: text.body,
    html: htmlDocument(text.subject, renderLifecycleText('testAlert', language, data, 'html').body, language),
    telegram: renderLifecycleText('testAlert', language, data, 'telegram').body,
  };
}

/** What the notice of a webhook endpoint disabled after days of failure says (`<lang>/lifecycle/webhookDisabled.eta`). */
export interface WebhookDisabledNotice {
  /** The endpoint's description, or its host when it has none. */
  endpoint: string;
  endpointId: string;
  /** The URL's host only: a path or query may carry a receiver's token. */
  host: string;
  days: number;
  /** When its circuit opened and when it was disabled, as a reader reads them. */
  failingSince: string;
  disabledAt: string;
  /** `openSince` as the API takes it, for the recovery's `since`. */
  since: string;
}

/** A notice to a client's users (`<lang>/lifecycle/<template>.eta`), in every format. */
function renderNotice(language: Language, template: string, data: object): RenderedNotification {
  const name = `./${LANGUAGE_FOLDERS[language]}/lifecycle/${template}`;
  const fields = data as TemplateData;
  const text = renderFile(name, 'text', fields);
  return {
    subject: text.subject,
    text: text.body,
    html: htmlDocument(text.subject, renderFile(name, 'html', fields).body, language),
    telegram: renderFile(name, 'telegram', fields).body,
  };
}

/** The notice that a webhook endpoint was disabled, in every format; never names its secret or its URL's path. */
export function renderWebhookDisabledNotice(language: Language, data: WebhookDisabledNotice): RenderedNotification {
  return renderNotice(language, 'webhookDisabled', data);
}

/** What the notice of a client's SMS spend cap reached says (`<lang>/lifecycle/smsCapReached.eta`). */
export interface SmsCapNotice {
  /** The calendar month (UTC), YYYY-MM. */
  month: string;
  capUsd: number;
}

/** The notice that a client's SMS stop for the rest of the month, in every format. */
export function renderSmsCapNotice(language: Language, data: SmsCapNotice): RenderedNotification {
  return renderNotice(language, 'smsCapReached', data);
}

/** One alert as a digest lists it: its subject and plain text, as rendered when it was held. */
export interface DigestedAlert {
  subject: string;
  text: string;
}

/**
 * The e-mail digests: `emailDigest` of alert e-mails held while the daily quota was nearly used, `quietHoursDigest`
 * of those held during the recipient's quiet hours.
 */
export type EmailDigestTemplate = 'emailDigest' | 'quietHoursDigest';

/** A recipient's digest of held alert e-mails (`<lang>/lifecycle/<template>.eta`), every alert in the order given. */
export function renderDigest(
  language: Language,
  alerts: readonly DigestedAlert[],
  template: EmailDigestTemplate = 'emailDigest',
): Omit<RenderedNotification, 'telegram'> {
  const name = `./${LANGUAGE_FOLDERS[language]}/lifecycle/${template}`;
  const data = { count: alerts.length, alerts } as unknown as TemplateData;
  const text = renderFile(name, 'text', data);
  return { subject: text.subject, text: text.body, html: htmlDocument(text.subject, renderFile(name, 'html', data).body, language) };
}

/**
 * One Telegram message listing the alerts held during a user's quiet hours, one line each (their subjects), in
 * the order given (`<lang>/lifecycle/quietHoursTelegram.eta`): HTML, and the same as plain text.
 */
export function renderQuietHoursTelegram(language: Language, alerts: readonly DigestedAlert[]): { html: string; text: string } {
  const name = `./${LANGUAGE_FOLDERS[language]}/lifecycle/quietHoursTelegram`;
  const data = { count: alerts.length, alerts } as unknown as TemplateData;
  return { html: renderFile(name, 'telegram', data).body, text: renderFile(name, 'text', data).body };
}
