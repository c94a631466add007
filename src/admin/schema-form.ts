import { type FormBody, formField } from './form-body';
import { prettyJson } from './view-helpers';
import { isJsonObject } from '../common/json-value';

/** How deep the form nests objects and arrays; anything deeper is a JSON field. */
export const MAX_FORM_DEPTH = 5;
/** Fields one form draws at most; the rest of the schema becomes JSON fields. */
export const MAX_FORM_FIELDS = 200;
/** Items of one array the form draws from a value; longer arrays are a JSON field. */
const MAX_ARRAY_ITEMS = 50;
/** Options of an enum drawn as a select; a longer enum is a text field. */
const MAX_ENUM_OPTIONS = 100;
/** Every field's name starts with this, so no argument can clash with the form's own fields. */
export const ARGUMENT_PREFIX = 'arg.';
/** Stands for an array item's index in an item template; the script puts a fresh one in. */
export const INDEX_MARK = '__index__';

interface FieldBase {
  /** The property this field gives a value to. */
  key: string;
  /** The form field's name (ARGUMENT_PREFIX and the path, dot-separated). */
  name: string;
  /** A unique HTML id. */
  id: string;
  label: string;
  description: string | null;
  required: boolean;
}

export type FormField = FieldBase &
  (
    | { kind: 'text' | 'number' | 'integer'; value: string; multiline: boolean }
    | { kind: 'boolean'; options: FormOption[] }
    | { kind: 'enum'; options: FormOption[]; values: unknown[] }
    | { kind: 'object'; fields: FormField[] }
    | { kind: 'array'; items: FormField[]; template: FormField }
    | { kind: 'json'; value: string; reason: string }
  );

interface FormOption {
  value: string;
  label: string;
  selected: boolean;
}

type Schema = Record<string, unknown>;

/** A property name as one segment of a field's name: dots inside it cannot split the path. */
function segment(key: string): string {
  return encodeURIComponent(key).replace(/\./g, '%2E');
}

/** A type the form can draw: one JSON type, or one type and null (drawn as that type). */
function typeOf(schema: Schema): string | null {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const types = type.filter((entry) => entry !== 'null');
    if (types.length === 1 && typeof types[0] === 'string') return types[0];
    return null;
  }
  if (Array.isArray(schema.enum)) return 'enum';
  if (isJsonObject(schema.properties)) return 'object';
  return null;
}

/** What the form cannot draw as fields, and so gives as a JSON field. */
function unsupported(schema: Schema): string | null {
  for (const keyword of ['$ref', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'patternProperties'])
    if (keyword in schema) return `uses ${keyword}`;
  return typeOf(schema) === null ? 'has no single type' : null;
}

/** A value as a text field shows it; what is not a scalar (a value sent as JSON) as its JSON. */
function scalarText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function descriptionOf(schema: Schema): string | null {
  const text = typeof schema.description === 'string' ? schema.description : '';
  return text === '' ? null : text.slice(0, 1_000);
}

/** Draws the fields of a JSON Schema, filled with `values`, within the form's bounds. */
class FormBuilder {
  private drawn = 0;

  /** `prefix` starts every name and id, so that two forms on one page never share one. */
  constructor(private readonly prefix: string) {}

  private get idPrefix(): string {
    return `f-${this.prefix.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  }

  field(
    schema: unknown,
    path: string[],
    label: string,
    required: boolean,
    value: unknown,
    depth: number,
  ): FormField {
    this.drawn += 1;
    const name = this.prefix + path.map(segment).join('.');
    const base: FieldBase = {
      key: path.at(-1) ?? '',
      name,
      // An item template's ids take the index its copy gets, so that no two copies share one.
      id: path.includes(INDEX_MARK)
        ? `${this.idPrefix}-${this.drawn}-${INDEX_MARK}`
        : `${this.idPrefix}-${this.drawn}`,
      label,
      description: isJsonObject(schema) ? descriptionOf(schema) : null,
      required,
    };
    const json = (reason: string): FormField => ({
      ...base,
      kind: 'json',
      value: value === undefined ? '' : prettyJson(value),
      reason,
    });
    if (!isJsonObject(schema)) return json('has no schema');
    const why = unsupported(schema);
    if (why) return json(why);
    if (this.drawn > MAX_FORM_FIELDS) return json('is past the form’s size');
    const enumValues = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : null;
    if (enumValues && enumValues.length > 0 && enumValues.length <= MAX_ENUM_OPTIONS) {
      const chosen = value === undefined ? null : JSON.stringify(value);
      return {
        ...base,
        kind: 'enum',
        values: enumValues,
        options: [
          ...(required ? [] : [{ value: '', label: '(not set)', selected: chosen === null }]),
          ...enumValues.map((option, index) => ({
            value: String(index),
            label: typeof option === 'string' ? option : JSON.stringify(option),
            selected: JSON.stringify(option) === chosen,
          })),
        ],
      };
    }
    const type = typeOf(schema) ?? 'none';
    switch (type) {
      case 'string':
      case 'number':
      case 'integer':
        return {
          ...base,
          kind: type === 'string' ? 'text' : type,
          value: scalarText(value),
          // A long text gets a text area: one whose schema allows more than a line's worth.
          multiline:
            type === 'string' && typeof schema.maxLength === 'number' && schema.maxLength > 200,
        };
      case 'boolean':
        return {
          ...base,
          kind: 'boolean',
          options: [
            ...(required ? [] : [{ value: '', label: '(not set)', selected: value === undefined }]),
            { value: 'true', label: 'true', selected: value === true },
            { value: 'false', label: 'false', selected: value === false },
          ],
        };
      case 'object':
        return depth >= MAX_FORM_DEPTH
          ? json('is nested too deep')
          : this.object(schema, path, base, value, depth);
      case 'array':
        if (path.some((part) => /^\d+$|^__index__$/.test(part)))
          return json('is an array inside an array');
        return depth >= MAX_FORM_DEPTH
          ? json('is nested too deep')
          : this.array(schema, path, base, value, depth);
      default:
        return json(`has type ${type}`);
    }
  }

  object(
    schema: Schema,
    path: string[],
    base: FieldBase,
    value: unknown,
    depth: number,
  ): FormField {
    const properties = isJsonObject(schema.properties) ? schema.properties : {};
    const required = new Set(
      Array.isArray(schema.required) ? schema.required.filter((n) => typeof n === 'string') : [],
    );
    const values = isJsonObject(value) ? value : {};
    const fields = Object.entries(properties).map(([key, property]) =>
      this.field(property, [...path, key], key, required.has(key), values[key], depth + 1),
    );
    return { ...base, kind: 'object', fields };
  }

  array(schema: Schema, path: string[], base: FieldBase, value: unknown, depth: number): FormField {
    const values = Array.isArray(value) ? value : [];
    if (values.length > MAX_ARRAY_ITEMS || Array.isArray(schema.items))
      return {
        ...base,
        kind: 'json',
        value: value === undefined ? '' : prettyJson(value),
        reason: 'is a long or tuple array',
      };
    const item = (index: string, itemValue: unknown) =>
      this.field(schema.items, [...path, index], `Item`, false, itemValue, depth + 1);
    const items = (values.length > 0 ? values : [undefined]).map((itemValue, index) =>
      item(String(index), itemValue),
    );
    return { ...base, kind: 'array', items, template: item(INDEX_MARK, undefined) };
  }
}

/**
 * The fields of a form for a tool's input schema: strings, numbers, integers, booleans and enums
 * (selects), nested objects as fieldsets, arrays with items to add and remove; what it cannot draw
 * (`$ref`, `oneOf`, a type union, past its depth or size) is a JSON field. Null when the schema is
 * not an object of properties: then only the raw JSON form applies.
 */
export function schemaForm(
  inputSchema: Record<string, unknown>,
  values: Record<string, unknown> = {},
  prefix = ARGUMENT_PREFIX,
): FormField[] | null {
  if (typeOf(inputSchema) !== 'object' || unsupported(inputSchema)) return null;
  const root = new FormBuilder(prefix).object(
    inputSchema,
    [],
    { key: '', name: '', id: 'f', label: '', description: null, required: true },
    values,
    0,
  );
  return root.kind === 'object' ? root.fields : null;
}

export type FormArguments =
  | { ok: true; arguments: Record<string, unknown> }
  | { ok: false; error: string; arguments: Record<string, unknown> };

/** Reads the arguments back from a form `schemaForm` drew: what is left empty is left out. */
export function formArguments(fields: FormField[], body: FormBody): FormArguments {
  const errors: string[] = [];
  const pathOf = (field: FormField) => field.name.slice(field.name.indexOf('.') + 1);
  const read = (field: FormField): unknown => {
    switch (field.kind) {
      case 'text': {
        const text = formField(body, field.name);
        return text === '' && !field.required ? undefined : text;
      }
      case 'number':
      case 'integer': {
        const text = formField(body, field.name).trim();
        if (text === '') return undefined;
        const number = Number(text);
        if (!Number.isFinite(number)) {
          errors.push(`${pathOf(field)} is not a number`);
          return text;
        }
        return number;
      }
      case 'boolean': {
        const text = formField(body, field.name);
        return text === '' ? undefined : text === 'true';
      }
      case 'enum': {
        const text = formField(body, field.name);
        if (text === '') return undefined;
        if (!/^\d+$/.test(text) || Number(text) >= field.values.length) {
          errors.push(`${pathOf(field)} is not one of its options`);
          return undefined;
        }
        return field.values[Number(text)];
      }
      case 'json': {
        const text = formField(body, field.name).trim();
        if (text === '') return undefined;
        try {
          return JSON.parse(text) as unknown;
        } catch {
          errors.push(`${pathOf(field)} is not valid JSON`);
          return undefined;
        }
      }
      case 'object': {
        const object = readObject(field.fields);
        return Object.keys(object).length === 0 && !field.required ? undefined : object;
      }
      case 'array': {
        const prefix = `${field.name}.`;
        const indexes = new Set<number>();
        for (const key of Object.keys(body)) {
          if (!key.startsWith(prefix)) continue;
          const index = /^(\d{1,6})(?:\.|$)/.exec(key.slice(prefix.length));
          if (index) indexes.add(Number(index[1]));
        }
        const items = [...indexes]
          .sort((a, b) => a - b)
          .slice(0, MAX_ARRAY_ITEMS * 10)
          .map((index) => read(withIndex(field.template, String(index))))
          .filter((item) => item !== undefined);
        return items.length === 0 && !field.required ? undefined : items;
      }
    }
  };
  const readObject = (fields: FormField[]): Record<string, unknown> => {
    const object: Record<string, unknown> = {};
    for (const field of fields) {
      const value = read(field);
      if (value !== undefined) object[field.key] = value;
    }
    return object;
  };
  const args = readObject(fields);
  return errors.length > 0
    ? { ok: false, error: `The form has mistakes: ${errors.join('; ')}.`, arguments: args }
    : { ok: true, arguments: args };
}

/** An array item template as the item at `index`: the mark in names and ids replaced. */
function withIndex(field: FormField, index: string): FormField {
  return JSON.parse(JSON.stringify(field).replaceAll(INDEX_MARK, index)) as FormField;
}
