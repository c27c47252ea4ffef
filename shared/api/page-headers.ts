import { createHash } from 'node:crypto';

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
