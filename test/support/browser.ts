import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * A real browser for the tests of the pages people open from e-mails: Debian's chromium, driven by playwright-core.
 * Nothing is downloaded: without the executable the test fails, saying what to install.
 */
export const PHONE_WIDTH = 390;

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(
      `no chromium at ${path}: the browser tests drive Debian's chromium. Install it (sudo apt-get install chromium; .ci/run does) ` +
        'or point CHROMIUM_PATH at a chromium executable',
    );
  }
  return path;
}

export async function launchBrowser(): Promise<Browser> {
  // chromium refuses its sandbox to root, which CI containers often are
  const root = process.getuid?.() === 0;
  return chromium.launch({ executablePath: chromiumPath(), args: root ? ['--no-sandbox'] : [] });
}

/** A new page of a phone's width, collecting what the browser refused under the page's Content-Security-Policy. */
export async function phonePage(browser: Browser): Promise<{ page: Page; refused: string[] }> {
  const page = await browser.newPage({ viewport: { width: PHONE_WIDTH, height: 844 }, deviceScaleFactor: 1 });
  const refused: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
  });
  return { page, refused };
}

/** What a person on a phone would run into: content wider than the screen, and the body's font size. */
export async function phoneLayout(page: Page): Promise<{ scrollWidth: number; fontSizePx: number }> {
  // evaluated in the page, where the DOM is (the tests compile without its types)
  return page.evaluate<{ scrollWidth: number; fontSizePx: number }>(
    '({ scrollWidth: document.documentElement.scrollWidth, fontSizePx: parseFloat(getComputedStyle(document.body).fontSize) })',
  );
}
