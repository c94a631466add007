import { isJsonObject, type JsonObject } from '../../common/json-value';

/**
 * Schemas of one OpenAPI operation built with their `$ref`s resolved in place, within bounds: the
 * libraries' dereferencing is unbounded (GitHub's 13 MB description grows to 47 MB) and leaves
 * cyclic schemas as cyclic objects, which no tool definition can carry. Here each operation's
 * schemas are built on their own, counted as they are built, and a cycle is refused by name.
 */

/** How large the schemas of one operation may grow. */
export interface SchemaBounds {
  /** JSON nesting of one built schema. */
  maxDepth: number;
  /** Objects and arrays in the schemas of one operation. */
  maxNodes: number;
  /** `$ref`s followed for one operation. */
  maxRefs: number;
}

export const DEFAULT_SCHEMA_BOUNDS: SchemaBounds = {
  maxDepth: 40,
  maxNodes: 20_000,
  maxRefs: 2_000,
};

/** One operation cannot become a tool; the rest of the document still can. */
export class OperationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperationRefused';
  }
}

/** Keys of an OpenAPI schema that say nothing a tool's caller needs: left out of tool schemas. */
const DROPPED_KEYS = new Set(['example', 'examples', 'xml', 'externalDocs', 'discriminator']);
/** Keys whose value maps names to schemas (not a schema itself). */
const SCHEMA_MAPS = new Set([
  'properties',
  'patternProperties',
  'definitions',
  '$defs',
  'dependentSchemas',
]);
const REF_CHAIN_LIMIT = 16;

/** Builds the schemas of one operation; one builder per operation, since it keeps the counts. */
export class SchemaBuilder {
  private nodes = 0;
  private refs = 0;

  constructor(
    private readonly document: JsonObject,
    private readonly bounds: SchemaBounds = DEFAULT_SCHEMA_BOUNDS,
  ) {}

  /**
   * A parameter, request body or response object, its `$ref` chain followed (not a schema: its
   * own schema is built with `schema`).
   */
  target(value: unknown): JsonObject {
    const seen: string[] = [];
    let current = value;
    while (isJsonObject(current) && typeof current.$ref === 'string') {
      if (seen.includes(current.$ref)) throw this.cycle([...seen, current.$ref]);
      if (seen.length >= REF_CHAIN_LIMIT)
        throw new OperationRefused(`a chain of more than ${REF_CHAIN_LIMIT} $refs`);
      seen.push(current.$ref);
      this.countRef();
      current = this.lookup(current.$ref);
    }
    if (!isJsonObject(current))
      throw new OperationRefused('a $ref points at something not an object');
    return current;
  }

  /** A JSON Schema with every `$ref` inlined; a 3.0 `nullable` becomes a `null` type. */
  schema(value: unknown): JsonObject {
    const built = this.copy(value, 1, [], false);
    return isJsonObject(built) ? built : {};
  }

  private copy(value: unknown, depth: number, stack: readonly string[], isMap: boolean): unknown {
    if (typeof value !== 'object' || value === null) return value;
    if (depth > this.bounds.maxDepth)
      throw new OperationRefused(`a schema nests more than ${this.bounds.maxDepth} levels deep`);
    if (++this.nodes > this.bounds.maxNodes)
      throw new OperationRefused(
        `its schemas hold more than ${this.bounds.maxNodes} objects once their $refs are resolved`,
      );
    if (Array.isArray(value)) return value.map((item) => this.copy(item, depth + 1, stack, false));
    if (!isMap && typeof (value as JsonObject).$ref === 'string')
      return this.inlined(value as JsonObject, depth, stack);
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      if (!isMap && (DROPPED_KEYS.has(key) || key.startsWith('x-'))) continue;
      out[key] = this.copy(child, depth + 1, stack, !isMap && SCHEMA_MAPS.has(key));
    }
    if (!isMap) return nullableToType(out);
    return out;
  }

  private inlined(value: JsonObject, depth: number, stack: readonly string[]): unknown {
    const ref = value.$ref as string;
    if (stack.includes(ref)) throw this.cycle([...stack.slice(stack.indexOf(ref)), ref]);
    this.countRef();
    const resolved = this.copy(this.lookup(ref), depth, [...stack, ref], false);
    const { $ref: _ref, ...siblings } = value;
    if (Object.keys(siblings).length === 0 || !isJsonObject(resolved)) return resolved;
    // 3.1 lets a $ref have siblings (a description, say); they refine what it points at.
    const refined = this.copy(siblings, depth, stack, false) as JsonObject;
    return { ...resolved, ...refined };
  }

  private countRef(): void {
    if (++this.refs > this.bounds.maxRefs)
      throw new OperationRefused(`it follows more than ${this.bounds.maxRefs} $refs`);
  }

  private cycle(chain: readonly string[]): OperationRefused {
    return new OperationRefused(
      `its schema refers to itself (${chain.join(' → ')}); cyclic schemas cannot be a tool's schema, exclude the operation or break the cycle`,
    );
  }

  /** What a local `$ref` (`#/components/...`) points at. */
  private lookup(ref: string): unknown {
    if (!ref.startsWith('#/'))
      throw new OperationRefused(
        `$ref ${JSON.stringify(ref.slice(0, 200))} is outside the document; only refs within it are followed`,
      );
    let current: unknown = this.document;
    for (const raw of ref.slice(2).split('/')) {
      const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      if (!isJsonObject(current) && !Array.isArray(current)) current = undefined;
      else current = Object.hasOwn(current, key) ? (current as JsonObject)[key] : undefined;
      if (current === undefined)
        throw new OperationRefused(
          `$ref ${JSON.stringify(ref.slice(0, 200))} points at nothing in the document`,
        );
    }
    return current;
  }
}

/** OpenAPI 3.0's `nullable: true` as JSON Schema says it. */
function nullableToType(schema: JsonObject): JsonObject {
  if (schema.nullable !== true && schema.nullable !== false) return schema;
  const { nullable, ...rest } = schema;
  if (nullable !== true) return rest;
  if (typeof rest.type === 'string') return { ...rest, type: [rest.type, 'null'] };
  if (Array.isArray(rest.type)) return { ...rest, type: [...(rest.type as unknown[]), 'null'] };
  return rest;
}
