import { optionalObject, optionalText, unstorableJson } from '../common/untrusted-text';
import { canonicalJson } from '../common/canonical-json';
import { refusalOf } from '../upstream/transport/message-bounds';
import { TOOL_NAME_RULE } from '../common/tool-name-rule';
import { isJsonObject, type JsonObject } from '../common/json-value';

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

/**
 * Checks one upstream tool definition, which is untrusted input. Refuses what cannot be served
 * safely (a bad name, a non-object input schema, an oversized definition) and repairs what can be
 * (an overlong description is truncated, a malformed optional member dropped), saying why.
 */
export function admitToolDefinition(raw: unknown): Admission {
  if (!isJsonObject(raw))
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
  const refused = refusalOf(raw);
  if (refused !== null) return { ok: false, name, reason: refused };
  const { inputSchema, outputSchema } = raw;
  if (
    !isJsonObject(inputSchema) ||
    (inputSchema.type !== undefined && inputSchema.type !== 'object')
  ) {
    return {
      ok: false,
      name,
      reason: 'inputSchema is not a JSON Schema object with type "object"',
    };
  }
  if (outputSchema !== undefined && outputSchema !== null && !isJsonObject(outputSchema)) {
    return { ok: false, name, reason: 'outputSchema is not an object' };
  }

  const warnings: string[] = [];
  const annotations = optionalObject('annotations', raw.annotations, warnings);
  const meta = optionalObject('_meta', raw._meta, warnings);

  const unstorable = unstorableJson([inputSchema, outputSchema, annotations, meta]);
  if (unstorable) return { ok: false, name, reason: unstorable };
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

  const description = optionalText('description', raw.description, DESCRIPTION_LIMIT, warnings);
  const title = optionalText('title', raw.title, TITLE_LIMIT, warnings);

  return {
    ok: true,
    tool: {
      name,
      title,
      description: description ?? '',
      inputSchema,
      outputSchema: (outputSchema as JsonObject | undefined) ?? null,
      annotations,
      meta,
    },
    warnings,
  };
}
