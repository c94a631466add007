import { type ScannedDefinition } from './finding';

/**
 * How much of one definition the scanner reads. Real definitions stay far below: the largest
 * recorded catalogue tool has 333 JSON values, nests 22 deep and has a 7,000-character
 * description. Past a limit the walk stops and says so; it never recurses, so no depth of input
 * can overflow the stack.
 */
export const SCAN_LIMITS = { depth: 64, values: 10_000, characters: 1_048_576 } as const;

/** Where a text sits in a definition, rendered only when a finding needs it. */
export class FieldPath {
  private constructor(
    private readonly parent: FieldPath | null,
    private readonly step: string,
  ) {}

  static root(name: string): FieldPath {
    return new FieldPath(null, name);
  }

  member(key: string): FieldPath {
    const safe = key.length <= 40 && /^[\w$-]+$/.test(key) ? key : JSON.stringify(key.slice(0, 40));
    return new FieldPath(this, `.${safe}`);
  }

  item(index: number): FieldPath {
    return new FieldPath(this, `[${index}]`);
  }

  /** `inputSchema.properties.path.description`; a deep path keeps its two ends. */
  toString(): string {
    const steps = [this.step];
    for (let at = this.parent; at !== null; at = at.parent) steps.push(at.step);
    if (steps.length > 12) steps.splice(6, steps.length - 12, '.…');
    return steps.reverse().join('');
  }
}

/** One text of a definition and how the rules should read it. */
export interface TextSlot {
  text: string;
  path: FieldPath;
  /** Language a model reads: descriptions, titles, schema and `_meta` strings. */
  prose: boolean;
  /** The name of an input property or prompt argument. */
  parameterName: boolean;
  /** The description of an input property or prompt argument. */
  parameterDescription: boolean;
}

/**
 * How the walk reads a JSON value: a schema; the `properties` of a schema (inside an input schema
 * its keys name parameters); another map of schemas (`$defs`); a list of schemas (`anyOf`); a
 * prompt's arguments, or one of them; the value of a schema keyword that holds identifiers
 * (`type`, `$ref`); or plain data.
 */
type Role =
  | 'schema'
  | 'properties'
  | 'schemas'
  | 'schema-list'
  | 'arguments'
  | 'argument'
  | 'keyword'
  | 'data';

interface Frame {
  value: unknown;
  path: FieldPath;
  role: Role;
  depth: number;
  /** Inside an input schema, where property names are parameters the model fills in. */
  input: boolean;
  /** A parameter's own schema, whose `description` describes the parameter. */
  parameter: boolean;
}

const SCHEMA_MAPS = new Set(['patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_MEMBERS = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
]);
const SCHEMA_LISTS = new Set(['anyOf', 'allOf', 'oneOf', 'prefixItems']);
/**
 * Keywords whose values are identifiers (`"string"`, a URI, parameter names). They are read as
 * prose only where they hold whitespace, as prose slipped into them would: a schema has thousands
 * of them, and reading each as prose would be a third of the scan.
 */
const IDENTIFIER_KEYWORDS = new Set([
  'type',
  'format',
  '$schema',
  '$ref',
  '$id',
  '$anchor',
  'required',
  'contentEncoding',
  'contentMediaType',
]);
const WHITESPACE = /\s/;

export interface WalkOutcome {
  /** Why the walk stopped early, or null when it read everything. */
  truncated: string | null;
}

type TextKind = Partial<Pick<TextSlot, 'prose' | 'parameterName' | 'parameterDescription'>>;

/** Calls `visit` for every text of the definition, object keys included, within `SCAN_LIMITS`. */
export function walkDefinition(
  definition: ScannedDefinition,
  visit: (slot: TextSlot) => void,
): WalkOutcome {
  let values = 0;
  let characters = 0;
  let truncated: string | null = null;

  /** Reads one text; false once the character budget is spent. */
  const read = (value: string, path: FieldPath, kind: TextKind): boolean => {
    const room = SCAN_LIMITS.characters - characters;
    const text = value.length > room ? value.slice(0, room) : value;
    characters += text.length;
    visit({
      text,
      path,
      prose: kind.prose ?? false,
      parameterName: kind.parameterName ?? false,
      parameterDescription: kind.parameterDescription ?? false,
    });
    if (text.length === value.length) return true;
    truncated = `it has more than ${SCAN_LIMITS.characters} characters of text`;
    return false;
  };

  if (typeof definition.name === 'string') read(definition.name, FieldPath.root('name'), {});
  if (typeof definition.uriTemplate === 'string')
    read(definition.uriTemplate, FieldPath.root('uriTemplate'), {});
  for (const member of ['title', 'description'] as const) {
    const value = definition[member];
    if (typeof value === 'string') read(value, FieldPath.root(member), { prose: true });
  }

  const root = (value: unknown, name: string, role: Role, input = false): Frame => ({
    value,
    path: FieldPath.root(name),
    role,
    depth: 1,
    input,
    parameter: false,
  });
  // A stack: the last pushed is read first.
  const stack: Frame[] = [
    root(definition.meta, '_meta', 'data'),
    root(definition.annotations, 'annotations', 'data'),
    root(definition.arguments, 'arguments', 'arguments'),
    root(definition.outputSchema, 'outputSchema', 'schema'),
    root(definition.inputSchema, 'inputSchema', 'schema', true),
  ];

  while (stack.length > 0 && truncated === null) {
    const frame = stack.pop()!;
    const { value, path, depth } = frame;
    if (value === undefined || value === null) continue;
    if (++values > SCAN_LIMITS.values) {
      truncated = `it has more than ${SCAN_LIMITS.values} JSON values`;
      break;
    }
    if (typeof value === 'string') {
      read(value, path, { prose: frame.role !== 'keyword' || WHITESPACE.test(value) });
      continue;
    }
    if (typeof value !== 'object') continue;
    if (depth > SCAN_LIMITS.depth) {
      truncated = `it nests more than ${SCAN_LIMITS.depth} levels deep`;
      break;
    }
    const children: Frame[] = [];
    const child = (member: unknown, at: FieldPath, role: Role, parameter = false) =>
      children.push({
        value: member,
        path: at,
        role,
        depth: depth + 1,
        input: frame.input,
        parameter,
      });
    if (Array.isArray(value)) {
      const items = value as unknown[];
      const itemRole = itemRoleOf(frame.role);
      // Each item is counted when it is read; more than the budget could never be.
      for (let i = 0; i < items.length && i < SCAN_LIMITS.values; i++)
        child(items[i], path.item(i), itemRole);
    } else {
      const parameters = frame.role === 'properties' && frame.input;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        // A key counts as a value: an object of many keys is as long to read as many values.
        if (++values > SCAN_LIMITS.values) {
          truncated = `it has more than ${SCAN_LIMITS.values} JSON values`;
          break;
        }
        const member = (value as Record<string, unknown>)[key];
        const at = path.member(key);
        if (!read(key, at, { parameterName: parameters })) break;
        const describes =
          typeof member === 'string' &&
          ((frame.role === 'schema' && frame.parameter && key === 'description') ||
            (frame.role === 'argument' && key === 'description'));
        if (describes) {
          if (!read(member, at, { prose: true, parameterDescription: true })) break;
          continue;
        }
        if (frame.role === 'argument' && key === 'name' && typeof member === 'string') {
          if (!read(member, at, { parameterName: true })) break;
          continue;
        }
        child(member, at, memberRoleOf(frame.role, key), parameters);
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return { truncated };
}

function itemRoleOf(role: Role): Role {
  switch (role) {
    case 'schema':
    case 'schema-list':
      return 'schema';
    case 'arguments':
      return 'argument';
    case 'keyword':
      return 'keyword';
    case 'properties':
    case 'schemas':
    case 'argument':
    case 'data':
      return 'data';
  }
}

function memberRoleOf(role: Role, key: string): Role {
  switch (role) {
    case 'schema':
      if (key === 'properties') return 'properties';
      if (IDENTIFIER_KEYWORDS.has(key)) return 'keyword';
      if (SCHEMA_MAPS.has(key)) return 'schemas';
      if (SCHEMA_MEMBERS.has(key)) return 'schema';
      if (SCHEMA_LISTS.has(key)) return 'schema-list';
      return 'data';
    case 'properties':
    case 'schemas':
      return 'schema';
    case 'schema-list':
    case 'arguments':
    case 'argument':
    case 'keyword':
    case 'data':
      return 'data';
  }
}
