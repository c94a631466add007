/** Any run of this many characters taken from a secret counts as leaking it. */
export const REDACT_MIN_CHARS = 8;
/** Shorter secrets are masked only whole, and not at all below this: they would mask words. */
const SHORTEST_SECRET = 6;
const MASK = '[redacted]';
const MAX_DEPTH = 64;

/**
 * The forms a secret may come back in: as sent, and JSON-escaped (an upstream that echoes a
 * request inside a JSON error body escapes quotes and backslashes).
 */
function forms(secret: string): string[] {
  const escaped = JSON.stringify(secret).slice(1, -1);
  return escaped === secret ? [secret] : [secret, escaped];
}

/**
 * `text` with every stretch of at least REDACT_MIN_CHARS characters that also occurs in one of
 * `secrets` masked: a whole credential, the token of a "Bearer …" header without its prefix, or
 * any other part of one long enough to matter. Stretches are found through the secrets'
 * REDACT_MIN_CHARS-character windows, so overlapping or adjacent parts merge into one mask.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  const windows = new Set<string>();
  for (const secret of secrets) {
    for (const form of forms(secret)) {
      if (form.length < REDACT_MIN_CHARS && form.length >= SHORTEST_SECRET)
        text = text.replaceAll(form, MASK);
      for (let start = 0; start + REDACT_MIN_CHARS <= form.length; start++)
        windows.add(form.slice(start, start + REDACT_MIN_CHARS));
    }
  }
  if (windows.size === 0 || text.length < REDACT_MIN_CHARS) return text;
  let result = '';
  let copiedUpTo = 0;
  let maskedUpTo = -1;
  for (let start = 0; start + REDACT_MIN_CHARS <= text.length; start++) {
    if (!windows.has(text.slice(start, start + REDACT_MIN_CHARS))) continue;
    if (start > maskedUpTo) {
      result += text.slice(copiedUpTo, start) + MASK;
    }
    maskedUpTo = start + REDACT_MIN_CHARS;
    copiedUpTo = maskedUpTo;
  }
  return result + text.slice(copiedUpTo);
}

/** A JSON value with every string in it redacted; beyond MAX_DEPTH levels it is dropped whole. */
export function redactValue(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return redactSecrets(value, secrets);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return MASK;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      redactSecrets(key, secrets),
      redactValue(item, secrets, depth + 1),
    ]),
  );
}
