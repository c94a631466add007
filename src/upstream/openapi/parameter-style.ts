/**
 * OpenAPI 3 parameter serialisation (the `style` and `explode` of a parameter): how one argument
 * becomes part of a path, a query string or a header. Every value is percent-encoded here; nothing
 * an argument holds can add a path segment, a query parameter or a header line.
 */

export type PathStyle = 'simple' | 'label' | 'matrix';
export type QueryStyle = 'form' | 'spaceDelimited' | 'pipeDelimited' | 'deepObject';
export type ParameterStyle = PathStyle | QueryStyle;

/** An argument that cannot be sent as its parameter says; the call is refused, nothing sent. */
export class ArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArgumentError';
  }
}

type Shape =
  | { kind: 'primitive'; value: string }
  | { kind: 'array'; items: string[] }
  | { kind: 'object'; entries: [string, string][] };

function primitive(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (value === null) return '';
  throw new ArgumentError(`${name}: a nested value cannot be serialised in this parameter`);
}

function shapeOf(name: string, value: unknown): Shape {
  if (Array.isArray(value))
    return { kind: 'array', items: value.map((item: unknown) => primitive(name, item)) };
  if (typeof value === 'object' && value !== null)
    return {
      kind: 'object',
      entries: Object.entries(value).map(([key, item]) => [key, primitive(name, item)]),
    };
  return { kind: 'primitive', value: primitive(name, value) };
}

const enc = encodeURIComponent;

/** The text a path parameter stands for in its template, escaped. */
export function pathValue(
  name: string,
  value: unknown,
  style: PathStyle,
  explode: boolean,
): string {
  const shape = shapeOf(name, value);
  const prefix = style === 'label' ? '.' : style === 'matrix' ? `;${enc(name)}=` : '';
  let text: string;
  switch (shape.kind) {
    case 'primitive':
      text = prefix + enc(shape.value);
      break;
    case 'array': {
      const items = shape.items.map(enc);
      if (!explode || style === 'simple') text = prefix + items.join(',');
      else if (style === 'label') text = '.' + items.join('.');
      else text = items.map((item) => `;${enc(name)}=${item}`).join('');
      break;
    }
    case 'object': {
      const pairs = shape.entries.map(([key, item]) => [enc(key), enc(item)] as const);
      if (!explode) text = prefix + pairs.flat().join(',');
      else if (style === 'simple') text = pairs.map(([k, v]) => `${k}=${v}`).join(',');
      else if (style === 'label') text = '.' + pairs.map(([k, v]) => `${k}=${v}`).join('.');
      else text = pairs.map(([k, v]) => `;${k}=${v}`).join('');
    }
  }
  // `.` and `..` are left as they are by percent-encoding, and mean "here" and "up" in a path.
  if (text === '' || text === '.' || text === '..')
    throw new ArgumentError(`${name}: a path parameter may not be empty, "." or ".."`);
  return text;
}

/** The `name=value` pairs (already escaped) a query parameter adds to the query string. */
export function queryPairs(
  name: string,
  value: unknown,
  style: QueryStyle,
  explode: boolean,
): string[] {
  const shape = shapeOf(name, value);
  const key = enc(name);
  switch (shape.kind) {
    case 'primitive':
      if (style === 'deepObject')
        throw new ArgumentError(`${name}: a deepObject parameter takes an object`);
      return [`${key}=${enc(shape.value)}`];
    case 'array':
      if (style === 'deepObject')
        throw new ArgumentError(`${name}: a deepObject parameter takes an object`);
      if (explode) return shape.items.map((item) => `${key}=${enc(item)}`);
      return [`${key}=${shape.items.map(enc).join(delimiter(style))}`];
    case 'object':
      if (style === 'deepObject')
        return shape.entries.map(([k, v]) => `${key}%5B${enc(k)}%5D=${enc(v)}`);
      if (explode && style === 'form') return shape.entries.map(([k, v]) => `${enc(k)}=${enc(v)}`);
      return [`${key}=${shape.entries.flat().map(enc).join(delimiter(style))}`];
  }
}

function delimiter(style: QueryStyle): string {
  switch (style) {
    case 'spaceDelimited':
      return '%20';
    case 'pipeDelimited':
      return '%7C';
    case 'form':
    case 'deepObject':
      return ',';
  }
}

/** A header parameter's value (style `simple`); no line break can pass. */
export function headerValue(name: string, value: unknown, explode: boolean): string {
  const shape = shapeOf(name, value);
  let text: string;
  switch (shape.kind) {
    case 'primitive':
      text = shape.value;
      break;
    case 'array':
      text = shape.items.join(',');
      break;
    case 'object':
      text = explode
        ? shape.entries.map(([k, v]) => `${k}=${v}`).join(',')
        : shape.entries.flat().join(',');
  }
  // What HTTP would refuse to send is the caller's error, never a failure of the upstream.
  if (/[^\t\x20-\x7e]/.test(text))
    throw new ArgumentError(
      `${name}: a header value may hold only printable ASCII and tabs (no line breaks or control characters)`,
    );
  return text;
}
