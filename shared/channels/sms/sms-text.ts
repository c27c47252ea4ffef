import { countSegments } from './segments';

/**
 * An alert's SMS: its subject (the vehicle and the event, from the kind's template in the recipient's language),
 * then the alert page's link, within `maxSegments` (1 by default: a second segment doubles the price). The link
 * goes first when both do not fit; then the subject is shortened, and at worst the link is left out.
 */
export function fitSmsText(subject: string, link: string | undefined, maxSegments = 1): string {
  const fits = (text: string) => countSegments(text).segments <= maxSegments;
  const whole = link ? `${subject} ${link}` : subject;
  if (fits(whole)) return whole;
  if (link) {
    const shortened = shorten(subject, (head) => fits(`${head} ${link}`));
    if (shortened) return `${shortened} ${link}`;
  }
  return shorten(subject, fits) ?? subject;
}

/** The longest head of `text` (cut at a character, marked with "...") that passes `fits`, or undefined. */
function shorten(text: string, fits: (head: string) => boolean): string | undefined {
  const chars = [...text];
  let low = 0;
  let high = chars.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(`${chars.slice(0, middle).join('').trimEnd()}...`)) low = middle;
    else high = middle - 1;
  }
  return low >= 8 ? `${chars.slice(0, low).join('').trimEnd()}...` : undefined;
}
