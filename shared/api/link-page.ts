import * as z from 'zod';
import { escapeHtml } from '../channels/escape-html';

/**
 * What the links in e-mails share (address confirmation, unsubscribe, acknowledge): a signed token in the path
 * instead of a session, and a small HTML page whose button posts, so that opening the link changes nothing.
 */
export const linkTokenParamsSchema = z.object({
  token: z
    .string()
    .min(10)
    .max(1_000)
    .regex(/^[A-Za-z0-9_.-]+$/, 'not a link token'),
});

export interface LinkPage {
  title: string;
  text: string;
  /** The label of the button that posts; no form without it. */
  button?: string | undefined;
  /** Where the button posts; the page's own address when absent. */
  action?: string | undefined;
  lang?: 'en' | 'ru' | 'az';
}

export function linkPage({ title, text, button, action, lang = 'en' }: LinkPage): string {
  const target = action ? ` action="${escapeHtml(action)}"` : '';
  const form = button ? `<form method="post"${target}><button type="submit">${escapeHtml(button)}</button></form>` : '';
  return (
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="robots" content="noindex">` +
    `<title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${form}</body></html>`
  );
}
