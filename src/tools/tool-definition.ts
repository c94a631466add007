import { canonicalJson } from './tool-hash';
import { TOOL_NAME_RULE } from './tool-name';
import { type JsonObject } from './tool.entity';

/** A tool definition as Portico stores it, after admission. */
export interface ToolDefinition {
  name: string;
  title: string | null;
  description: string;
  inputSchema: JsonObject;
  outputSchema: JsonObject | null;
  annotations: JsonObject | null;
  meta: JsonObject | null;
}

/** Longer descriptions are cut to this many characters, with a warning in the sync report. */
export const DESCRIPTION_LIMIT = 16_384;
export const TITLE_LIMIT = 256;
/** Schemas, annotations and `_meta` together, as JSON; larger definitions are refused. */
export const DEFINITION_BYTES_LIMIT = 256 * 1024;

export type Admission =
  | { ok: true; tool: ToolDefinition; warnings: string[] }
  | { ok: false; name: string; reason: string };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks one upstream tool definition, which is untrusted input. Refuses what cannot be served
 * safely (a bad name, a non-object input schema, an oversized definition) and repairs what can be
 * (an overlong description is truncated, a malformed optional member dropped), saying why.
 */
export function admitToolDefinition(raw: unknown): Admission {
  if (!isObject(raw))
    return { ok: false, name: String(raw), reason: 'the definition is not an object' };
  if (typeof raw.name !== 'string')
    return { ok: false, name: String(raw.name), reason: 'the name is not a string' };
  const name = raw.name;
  if (!TOOL_NAME_RULE.test(name)) {
    return {
      ok: false,
      name,
      reason: 'the name breaks the MCP tool-name rule ^[A-Za-z0-9_.-]{1,128}$',
    };
  }
  const { inputSchema, outputSchema } = raw;
  if (!isObject(inputSchema) || (inputSchema.type !== undefined && inputSchema.type !== 'object')) {
    return {
      ok: false,
      name,
      reason: 'inputSchema is not a JSON Schema object with type "object"',
    };
  }
  if (outputSchema !== undefined && outputSchema !== null && !isObject(outputSchema)) {
    return { ok: false, name, reason: 'outputSchema is not an object' };
  }

  const warnings: string[] = [];
  const optionalObject = (member: string, value: unknown): JsonObject | null => {
    if (value === undefined || value === null) return null;
    if (isObject(value)) return value;
    warnings.push(`${member} is not an object and was dropped`);
    return null;
  };
  const annotations = optionalObject('annotations', raw.annotations);
  const meta = optionalObject('_meta', raw._meta);

  // PostgreSQL cannot store these in jsonb; one such tool would fail the whole sync.
  if (someString([inputSchema, outputSchema, annotations, meta], (text) => text.includes('\0'))) {
    return { ok: false, name, reason: 'the definition contains NUL characters (U+0000)' };
  }
  if (someString([inputSchema, outputSchema, annotations, meta], (text) => !isWellFormed(text))) {
    return { ok: false, name, reason: 'the definition contains unpaired UTF-16 surrogates' };
  }
  const size = Buffer.byteLength(
    canonicalJson([inputSchema, outputSchema ?? null, annotations, meta]),
  );
  if (size > DEFINITION_BYTES_LIMIT) {
    return {
      ok: false,
      name,
      reason: `the definition is ${size} bytes, over the ${DEFINITION_BYTES_LIMIT}-byte limit`,
    };
  }

  let description = '';
  if (typeof raw.description === 'string') description = raw.description;
  else if (raw.description !== undefined && raw.description !== null)
    warnings.push('description is not a string and was dropped');
  description = storableText('description', description, warnings);
  if (description.length > DESCRIPTION_LIMIT) {
    warnings.push(
      `description truncated from ${description.length} to ${DESCRIPTION_LIMIT} characters`,
    );
    description = description.slice(0, DESCRIPTION_LIMIT);
  }

  let title: string | null =
    typeof raw.title === 'string' ? storableText('title', raw.title, warnings) : null;
  if (title !== null && title.length > TITLE_LIMIT) {
    warnings.push(`title truncated from ${title.length} to ${TITLE_LIMIT} characters`);
    title = title.slice(0, TITLE_LIMIT);
  }

  return {
    ok: true,
    tool: {
      name,
      title,
      description,
      inputSchema,
      outputSchema: (outputSchema as JsonObject | undefined) ?? null,
      annotations,
      meta,
    },
    warnings,
  };
}

const UNPAIRED_SURROGATE =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function isWellFormed(text: string): boolean {
  UNPAIRED_SURROGATE.lastIndex = 0;
  return !UNPAIRED_SURROGATE.test(text);
}

/** Text PostgreSQL can store: NUL characters removed, unpaired surrogates replaced by U+FFFD. */
function storableText(member: string, text: string, warnings: string[]): string {
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

/** Whether any string in the JSON value, object keys included, matches. */
function someString(value: unknown, matches: (text: string) => boolean): boolean {
  if (typeof value === 'string') return matches(value);
  if (Array.isArray(value)) return value.some((inner) => someString(inner, matches));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(([key, inner]) => matches(key) || someString(inner, matches));
  }
  return false;
}
