/**
 * Checks shared by everything admitted from outside: what PostgreSQL cannot store in text or
 * jsonb would fail a whole sync of upstreams' tools, resources, templates and prompts, a client's
 * session or a batch of the audit trail, so it is repaired (or refused item by item).
 */
import { isJsonObject, type JsonObject, someString } from './json-value';

const UNPAIRED_SURROGATE =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function isWellFormed(text: string): boolean {
  UNPAIRED_SURROGATE.lastIndex = 0;
  return !UNPAIRED_SURROGATE.test(text);
}

/** Whether PostgreSQL can store the text as it is: no NUL character, no unpaired surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\0') && isWellFormed(text);
}

/** The text as PostgreSQL can store it: NUL characters removed, unpaired surrogates U+FFFD. */
export function repairedText(text: string): string {
  if (isStorableText(text)) return text;
  return text.replaceAll('\0', '').replace(UNPAIRED_SURROGATE, '\uFFFD');
}

/** repairedText, saying in `warnings` what `member` held. */
export function storableText(member: string, text: string, warnings: string[]): string {
  let storable = text;
  if (storable.includes('\0')) {
    warnings.push(`${member} contained NUL characters, which were removed`);
    storable = storable.replaceAll('\0', '');
  }
  if (!isWellFormed(storable)) {
    warnings.push(`${member} contained unpaired UTF-16 surrogates, which were replaced by U+FFFD`);
    storable = storable.replace(UNPAIRED_SURROGATE, '\uFFFD');
  }
  return storable;
}

/**
 * A text column that stores what an upstream or another server said (an error it answered with),
 * repaired (repairedText): one such character must not lose the whole write.
 */
export const STORABLE_TEXT = {
  to: (value: string | null | undefined): string | null | undefined =>
    typeof value === 'string' ? repairedText(value) : value,
  from: (value: string | null): string | null => value,
};

/** In JSON text: `\u0000`, or a surrogate's escape, with no backslash escaping it. */
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(0000|d[89a-f][0-9a-f]{2})/g;

/**
 * JSON text as PostgreSQL stores it in `json` and `jsonb` and reads it into text: NUL characters
 * removed and unpaired surrogates made U+FFFD, in keys and values alike. `json` must be what
 * JSON.stringify wrote, which writes those two, and nothing else like them, as escapes.
 */
export function storableJsonText(json: string): string {
  if (!json.includes('\\u0000') && !/\\ud[89a-f]/.test(json)) return json;
  return json.replace(UNSTORABLE_ESCAPE, (_match, backslashes: string, code: string) =>
    code === '0000' ? backslashes : `${backslashes}\\ufffd`,
  );
}

/**
 * A JSON value as PostgreSQL can store it (see storableJsonText); itself when it can already,
 * found by walking its strings and keys, so that a value that needs nothing is not serialised
 * twice (here and by the driver).
 */
export function storableJson<T>(value: T): T {
  if (value === null || value === undefined) return value;
  if (!someString(value, (text) => !isStorableText(text))) return value;
  return JSON.parse(storableJsonText(JSON.stringify(value))) as T;
}

/** A jsonb column that stores what a client or an upstream sent, made storable (storableJson). */
export const STORABLE_JSON = { to: storableJson, from: <T>(value: T): T => value };

/** Why JSON values cannot be stored in jsonb, or null when they can. */
export function unstorableJson(values: unknown[], what = 'the definition'): string | null {
  if (someString(values, (text) => text.includes('\0')))
    return `${what} contains NUL characters (U+0000)`;
  if (someString(values, (text) => !isWellFormed(text)))
    return `${what} contains unpaired UTF-16 surrogates`;
  return null;
}

/** A file's bytes as UTF-8 text; throws on bytes that are not UTF-8 rather than replacing them. */
export function utf8Text(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** An optional text member: repaired to what can be stored, cut at `limit` with a warning. */
export function optionalText(
  member: string,
  value: unknown,
  limit: number,
  warnings: string[],
): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    warnings.push(`${member} is not a string and was dropped`);
    return null;
  }
  const text = storableText(member, value, warnings);
  if (text.length <= limit) return text;
  warnings.push(`${member} truncated from ${text.length} to ${limit} characters`);
  return text.slice(0, limit);
}

/** An optional object member; anything else is dropped with a warning. */
export function optionalObject(
  member: string,
  value: unknown,
  warnings: string[],
): JsonObject | null {
  if (value === undefined || value === null) return null;
  if (isJsonObject(value)) return value;
  warnings.push(`${member} is not an object and was dropped`);
  return null;
}

/**
 * `text` without the run of `chars` at either end. By hand: a regex anchored at the end
 * (`/[_.-]+$/`) tries every run it meets, quadratic on untrusted text such as `.-.-.-…x`.
 */
export function trimmedOf(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start]!)) start++;
  while (end > start && chars.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}
