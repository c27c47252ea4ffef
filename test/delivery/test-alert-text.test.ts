import { describe, expect, it } from 'vitest';
import type { Language } from '../../shared/schemas/directory';
import { LANGUAGE_FOLDERS, renderTestNotification } from '../../shared/delivery/render';

const LANGUAGES = Object.keys(LANGUAGE_FOLDERS).map(Number) as Language[];

/** A rule's test alert says TEST first, in every language and format, and escapes the rule's name like an alert. */
describe('test alert text', () => {
  it.each(LANGUAGES)('marks the subject and every first line TEST (language %i)', (language) => {
    const rendered = renderTestNotification(language, { rule: 'Night <speeding> & co', time: '2026-03-01 13:00 (UTC+3)' });
    expect(rendered.subject).toBe('TEST: Night <speeding> & co');
    expect(rendered.text.split('\n')[0]).toMatch(/^TEST: .*Night <speeding> & co.*2026-03-01 13:00 \(UTC\+3\)/);
    expect(rendered.telegram).toMatch(/^<b>TEST<\/b>: .*Night &lt;speeding&gt; &amp; co/);
    expect(rendered.html).toContain('<b>TEST</b>');
    expect(rendered.html).not.toContain('<speeding>');
  });
});
