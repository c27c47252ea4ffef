import { createHash, randomBytes } from 'node:crypto';

/** Session tokens: 256 random bits, base64url. Only their sha256 is ever stored. */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
