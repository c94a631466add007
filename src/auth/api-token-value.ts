import { createHash, randomBytes } from 'node:crypto';

/** Every managed API token starts with this, so that secret scanners and people can spot one. */
export const API_TOKEN_PREFIX = 'pt_';
const DISPLAY_CHARS = 10;

export interface NewTokenValue {
  value: string;
  hash: string;
  /** The start of the value, stored so that a list can tell tokens apart. */
  prefix: string;
}

/** A new random token: 256 bits, base64url, after the prefix. */
export function newTokenValue(): NewTokenValue {
  const value = API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { value, hash: hashTokenValue(value), prefix: value.slice(0, DISPLAY_CHARS) };
}

export function hashTokenValue(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function looksLikeApiToken(value: string): boolean {
  return value.startsWith(API_TOKEN_PREFIX) && /^pt_[A-Za-z0-9_-]{43}$/.test(value);
}
