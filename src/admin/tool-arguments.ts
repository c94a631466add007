import Ajv, { type Options } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export type ArgumentsCheck =
  | { ok: true; arguments: Record<string, unknown>; warning: string | null }
  | { ok: false; error: string };

const AJV_OPTIONS: Options = { strict: false, allErrors: true };

/** Ajv for the dialect the schema declares (draft-07 when it declares none). */
function ajvFor(schema: Record<string, unknown>): Ajv {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const ajv = dialect.includes('2020-12')
    ? new Ajv2020(AJV_OPTIONS)
    : dialect.includes('2019-09')
      ? new Ajv2019(AJV_OPTIONS)
      : new Ajv(AJV_OPTIONS);
  addFormats(ajv);
  return ajv;
}

/**
 * Parses the test-invoke form's JSON and checks it against the tool's input schema before anything
 * is sent upstream. A fresh Ajv per check, because upstream schemas may reuse each other's `$id`.
 * A schema Ajv cannot compile (an unknown dialect, a remote `$ref`) does not block the call: the
 * upstream validates too, and the page says the arguments went unchecked.
 */
export function checkToolArguments(
  text: string,
  inputSchema: Record<string, unknown>,
): ArgumentsCheck {
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `The arguments are not valid JSON: ${(error as Error).message}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, error: 'The arguments must be a JSON object, such as {"name": "value"}.' };
  }
  const args = parsed as Record<string, unknown>;
  const { schema, dropped } = withoutPatterns(inputSchema);
  const ajv = ajvFor(schema);
  let validate: ReturnType<Ajv['compile']>;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    return {
      ok: true,
      arguments: args,
      warning: `The tool's input schema could not be compiled (${(error as Error).message}), so the arguments were sent unchecked.`,
    };
  }
  if (!validate(args)) {
    return {
      ok: false,
      error: `The arguments do not match the input schema: ${ajv.errorsText(validate.errors, { dataVar: 'arguments' })}.`,
    };
  }
  return {
    ok: true,
    arguments: args,
    warning: dropped ? UNCHECKED_PATTERNS : null,
  };
}

const UNCHECKED_PATTERNS =
  "The tool's input schema has regular expressions (pattern, patternProperties), which are not run here: the upstream checks them.";

/**
 * The schema without its `pattern` and `patternProperties` keywords: an upstream's regular
 * expression run on the caller's input in the replica's own thread could hold it for minutes
 * (`^(a+)+$` against 30 characters). A property named `pattern` has a schema, not a string, and
 * stays. The walk is bounded by the schema, which a sync has bounded.
 */
function withoutPatterns(schema: Record<string, unknown>): {
  schema: Record<string, unknown>;
  dropped: boolean;
} {
  let dropped = false;
  const copy = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(copy);
    if (typeof value !== 'object' || value === null) return value;
    const result: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (
        (key === 'pattern' && typeof child === 'string') ||
        (key === 'patternProperties' && typeof child === 'object' && child !== null)
      ) {
        dropped = true;
        continue;
      }
      result[key] = copy(child);
    }
    return result;
  };
  return { schema: copy(schema) as Record<string, unknown>, dropped };
}

function placeholder(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return null;
  const property = schema as Record<string, unknown>;
  if ('default' in property) return property.default;
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0];
  const type = Array.isArray(property.type) ? (property.type as unknown[])[0] : property.type;
  switch (type) {
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return null;
  }
}

/** A starting point for the test-invoke form: the schema's required arguments with blank values. */
export function argumentsTemplate(inputSchema: Record<string, unknown>): string {
  const properties =
    typeof inputSchema.properties === 'object' && inputSchema.properties !== null
      ? (inputSchema.properties as Record<string, unknown>)
      : {};
  const required = Array.isArray(inputSchema.required)
    ? inputSchema.required.filter((name): name is string => typeof name === 'string')
    : [];
  const template = Object.fromEntries(
    required.map((name) => [name, placeholder(properties[name])]),
  );
  return JSON.stringify(template, null, 2);
}
