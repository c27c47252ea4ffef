import * as z from 'zod';
import { renderPage } from '../delivery/render';
import { PAGE_STYLE } from './page-headers';

/**
 * What the links in e-mails share (address confirmation, unsubscribe, the alert page, mute): a signed token in the
 * path instead of a session, and a small HTML page whose buttons post, so that opening the link changes nothing.
 * Every page is rendered in one shell (`templates/pages/layout.eta`): readable on a phone, no script, one inline
 * style, which the Content-Security-Policy allows by its hash and nothing else.
 */
export const linkTokenParamsSchema = z.object({
  token: z
    .string()
    .min(10)
    .max(1_000)
    .regex(/^[A-Za-z0-9_.-]+$/, 'not a link token'),
});

export type PageLanguage = 'en' | 'ru' | 'az';
export const PAGE_LANGUAGE: Record<1 | 2 | 3, PageLanguage> = { 1: 'ru', 2: 'en', 3: 'az' };

/** A page of the shell: `pages/<template>.eta` with its data, the title and the language. */
export function page(template: string, data: { title: string; lang: PageLanguage } & Record<string, unknown>): string {
  return renderPage(template, { ...data, style: PAGE_STYLE });
}

export interface LinkPage {
  title: string;
  text: string;
  /** The label of the button that posts; no form without it. */
  button?: string | undefined;
  /** Where the button posts; the page's own address when absent. */
  action?: string | undefined;
  lang?: PageLanguage;
}

/** A page that says one thing, with one button when it asks for something. */
export function linkPage({ title, text, button, action, lang = 'en' }: LinkPage): string {
  return page('link', { title, text, button, action, lang });
}

/** Whether the request is a browser's (it accepts a page): a route that answers programs JSON answers it a page. */
export const wantsPage = (headers: Record<string, string | undefined>): boolean => /\btext\/html\b/i.test(headers.accept ?? '');
