/** A JSON object as stored in jsonb columns and read from upstreams: schemas, annotations, `_meta`. */
export type JsonObject = Record<string, unknown>;

/** A JSON object: neither null nor an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
