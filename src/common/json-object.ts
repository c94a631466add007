/** A JSON object as stored in jsonb columns and read from upstreams: schemas, annotations, `_meta`. */
export type JsonObject = Record<string, unknown>;
