import { createHmac, timingSafeEqual } from 'node:crypto';

/** A key for one purpose, derived from the app secret so that a value made for one purpose is useless for another. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`portico:${purpose}`).digest();
}

/** HMAC-SHA256 of `data`, base64url. */
export function mac(key: Buffer, data: string): string {
  return createHmac('sha256', key).update(data).digest('base64url');
}

/** Compares two MACs in constant time. */
export function macEquals(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `<base64url(JSON)>.<mac>`: readable by anyone, forgeable by no one without the key. */
export function signValue(key: Buffer, payload: unknown): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${mac(key, body)}`;
}

/** The payload of a value made by `signValue` with this key, or null if it was not, or was altered. */
export function verifyValue(key: Buffer, value: string): unknown {
  const dot = value.indexOf('.');
  if (dot <= 0) return null;
  const body = value.slice(0, dot);
  if (!macEquals(mac(key, body), value.slice(dot + 1))) return null;
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
  } catch {
    return null;
  }
}
