import { createHash } from 'node:crypto';
import * as z from 'zod';
import { renderPage } from '../delivery/render';

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

/** The pages' only style. Long addresses and ids wrap anywhere: nothing may be wider than a 390 px phone. */
export const PAGE_STYLE = [
  'html{-webkit-text-size-adjust:100%}',
  'body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#1a1a1a;background:#fff;overflow-wrap:anywhere}',
  'main{max-width:40rem;margin:0 auto;padding:1rem}',
  'h1{font-size:1.375rem;line-height:1.3;margin:.25rem 0 1rem}',
  'h2{font-size:1.125rem;margin:1.5rem 0 .5rem;border-top:1px solid #ddd;padding-top:1rem}',
  'dl{margin:0}dt{font-weight:600;margin-top:.5rem}dd{margin:0}',
  'ul{padding-left:1.25rem;margin:.25rem 0}li{margin:.25rem 0}',
  'a{color:#0b57d0}',
  '.severity{display:inline-block;padding:0 .5rem;border-radius:.25rem;font-weight:600;background:#eee}',
  '.critical{background:#fde2e1;color:#8a1410}.warning{background:#fff1d6;color:#7a4a00}',
  '.text{white-space:pre-line;background:#f6f6f6;padding:.75rem;border-radius:.25rem}',
  '.notice{border-left:.25rem solid #0b57d0;background:#eef3fd;padding:.25rem .75rem;margin:0 0 1rem}',
  '.refusal{border-left-color:#b3261e;background:#fdeeee}',
  'blockquote{margin:.25rem 0;padding-left:.75rem;border-left:.2rem solid #ccc}',
  'form{margin:.75rem 0}label{display:block;font-weight:600}',
  'textarea{box-sizing:border-box;width:100%;min-height:4.5rem;font:inherit;padding:.5rem}',
  'button{font:inherit;min-height:2.75rem;padding:.5rem 1rem;margin:.5rem .5rem 0 0;max-width:100%;white-space:normal}',
  '.muted{color:#5f5f5f}',
].join('');

const styleHash = createHash('sha256').update(PAGE_STYLE).digest('base64');

/**
 * The headers of every page: nothing loads but the inline style (no script, image, frame or font), forms post
 * only to the API itself, no other site may frame the page, the token in its address is never sent on as a
 * referrer, and no cache keeps a copy.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${styleHash}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

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
