import { escapeHtml } from '../channels/escape-html';
import type { Reply } from './route';

/**
 * A 302 to `url`: what a short link answers. Browsers follow Location; the small page is for a client that
 * shows the answer instead, and the pages' headers (no referrer, no cache) keep the address it leads to private.
 */
export function linkRedirectPage(url: string): string {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>fleetwatch</title><p><a href="${escapeHtml(url)}">Open the alert</a></p></html>`;
}

export function redirectTo(url: string): Reply {
  return { status: 302, body: null, headers: { Location: url }, html: linkRedirectPage(url) };
}
