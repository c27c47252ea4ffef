import type { RuleEvent } from '../schemas/alert';
import type { TerminalMessage } from '../schemas/terminal-message';

/**
 * The events of the common evaluation that raises none: one shared, frozen array instead of a new one per
 * message and rule. Frozen, so that code appending to it fails loudly instead of corrupting other results.
 */
export const NO_EVENTS: RuleEvent[] = Object.freeze([]) as unknown as RuleEvent[];

/** Hot-path readers of message parameters: no allocation, no schema parsing. */

/**
 * Whether the text can be a decimal number: digits, sign, point, exponent and surrounding blanks only, and at
 * least one digit. `Number()` alone reads a blank as 0 and accepts hexadecimal, binary and `Infinity`; a scan
 * of the characters is cheaper than a regular expression on this hot path.
 */
function decimalLike(text: string): boolean {
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) digits++;
    // . - + e E space tab
    else if (code !== 46 && code !== 45 && code !== 43 && code !== 101 && code !== 69 && code !== 32 && code !== 9) return false;
  }
  return digits > 0;
}

/**
 * A parameter as a finite number, or undefined when absent, blank, not a decimal number or beyond what
 * DynamoDB can store (magnitude 1e126 and more); magnitudes below 1e-130, which DynamoDB cannot store either,
 * read as 0. Readings end up in stored rule states and alerts, so one such value must not make them unwritable.
 */
export function numericParameter(message: TerminalMessage, key: string): number | undefined {
  const text = message.parameters[key];
  if (text === undefined || !decimalLike(text)) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || Math.abs(value) >= 1e126) return undefined;
  return Math.abs(value) < 1e-130 ? 0 : value;
}

/**
 * A digital parameter: 1/true/on (or any non-zero decimal number) is on; 0/false/off is off; anything else,
 * a blank included, is unknown.
 */
export function switchParameter(message: TerminalMessage, key: string): boolean | undefined {
  const text = message.parameters[key];
  if (text === undefined || text === '') return undefined;
  switch (text.toLowerCase()) {
    case 'true':
    case 'on':
      return true;
    case 'false':
    case 'off':
      return false;
  }
  if (!decimalLike(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value !== 0 : undefined;
}

const digit = (text: string, index: number) => text.charCodeAt(index) - 48;

/**
 * Epoch ms of an ISO time. Terminal times are almost always `YYYY-MM-DDTHH:MM:SS.sssZ`, which is read digit by
 * digit (about twice as fast as Date.parse); any other form (offsets, no milliseconds) goes to Date.parse.
 */
export function isoToMs(text: string): number {
  if (text.length !== 24 || text.charCodeAt(23) !== 90 /* Z */ || text.charCodeAt(19) !== 46 /* . */) return Date.parse(text);
  return Date.UTC(
    digit(text, 0) * 1000 + digit(text, 1) * 100 + digit(text, 2) * 10 + digit(text, 3),
    digit(text, 5) * 10 + digit(text, 6) - 1,
    digit(text, 8) * 10 + digit(text, 9),
    digit(text, 11) * 10 + digit(text, 12),
    digit(text, 14) * 10 + digit(text, 15),
    digit(text, 17) * 10 + digit(text, 18),
    digit(text, 20) * 100 + digit(text, 21) * 10 + digit(text, 22),
  );
}

let lastMessage: TerminalMessage | undefined;
let lastMs = 0;

/**
 * The message's device time in epoch ms. Every rule of a vehicle reads it from the same message in turn,
 * so one remembered answer saves re-parsing the ISO string per rule.
 */
export function deviceMs(message: TerminalMessage): number {
  if (message !== lastMessage || lastMessage.deviceTime !== message.deviceTime) {
    lastMessage = message;
    lastMs = isoToMs(message.deviceTime);
  }
  return lastMs;
}

/** An event at the message's device time and position. */
export function messageEvent(kind: string, message: TerminalMessage, values: RuleEvent['values']): RuleEvent {
  return { kind, time: message.deviceTime, latitude: message.latitude, longitude: message.longitude, speed: message.speed, values };
}

export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
