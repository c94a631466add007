import type * as SchemaValidator from '@seriousme/openapi-schema-validator' with {
  'resolution-mode': 'import',
};
import { parseYamlText } from '../../common/yaml-text';
import { isJsonObject, nestingDepth, type JsonObject } from '../../common/json-value';

/** A description Portico cannot take whole: not OpenAPI 3.0/3.1, invalid, or past a bound. */
export class OpenApiDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OpenApiDocumentError';
  }
}

/** How large a description may be, read or stored. */
export const DOCUMENT_MAX_BYTES = 20 * 1024 * 1024;
/** JSON nesting of a whole description; the validator walks it recursively. */
export const DOCUMENT_MAX_DEPTH = 200;
const ERRORS_SHOWN = 3;

/** A description's text (JSON, or YAML), parsed and checked to be OpenAPI 3.0 or 3.1 in shape. */
export function parseDocument(text: string): JsonObject {
  if (Buffer.byteLength(text) > DOCUMENT_MAX_BYTES)
    throw new OpenApiDocumentError(
      `the description is larger than ${DOCUMENT_MAX_BYTES} bytes, past the limit`,
    );
  let value: unknown;
  try {
    value = /^\s*[{[]/.test(text) ? JSON.parse(text) : parseYamlText(text, { uniqueKeys: false });
  } catch (error) {
    throw new OpenApiDocumentError(
      `the description is neither JSON nor YAML: ${(error as Error).message.slice(0, 200)}`,
    );
  }
  if (nestingDepth(value, DOCUMENT_MAX_DEPTH) > DOCUMENT_MAX_DEPTH)
    throw new OpenApiDocumentError(
      `the description nests more than ${DOCUMENT_MAX_DEPTH} levels deep, past the limit`,
    );
  if (!isJsonObject(value)) throw new OpenApiDocumentError('the description is not a JSON object');
  const version = value.openapi;
  if (typeof version !== 'string' || !/^3\.[01]\.\d+/.test(version))
    throw new OpenApiDocumentError(
      `the description is not OpenAPI 3.0 or 3.1 (its "openapi" is ${JSON.stringify(version ?? null).slice(0, 40)}); Swagger 2.0 is not taken`,
    );
  return value;
}

let loading: Promise<typeof SchemaValidator> | undefined;

/**
 * Checks the description against the OpenAPI 3.0/3.1 JSON Schemas (@seriousme/openapi-schema-
 * validator, on ajv): a description that is not valid is refused with the validator's first
 * errors. `$ref`s are not followed here; each operation resolves its own, bounded.
 */
export async function validateDocument(document: JsonObject): Promise<void> {
  loading ??= import('@seriousme/openapi-schema-validator');
  const { Validator } = await loading;
  const result = await new Validator().validate(document);
  if (result.valid) return;
  const errors = Array.isArray(result.errors) ? result.errors : [result.errors];
  const shown = errors.slice(0, ERRORS_SHOWN).map((error) => {
    const { instancePath, message } = (error ?? {}) as { instancePath?: string; message?: string };
    return `${instancePath || '/'} ${message ?? 'is invalid'}`;
  });
  throw new OpenApiDocumentError(`the description is not valid OpenAPI: ${shown.join('; ')}`);
}
