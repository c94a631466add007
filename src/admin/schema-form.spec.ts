import { type FormBody } from './form-body';
import {
  formArguments,
  type FormField,
  MAX_FORM_DEPTH,
  MAX_FORM_FIELDS,
  schemaForm,
} from './schema-form';

function kinds(fields: FormField[]): Record<string, string> {
  return Object.fromEntries(fields.map((field) => [field.key, field.kind]));
}

describe('schemaForm', () => {
  it('draws each JSON type as its field, and what it cannot draw as JSON', () => {
    const fields = schemaForm({
      type: 'object',
      properties: {
        s: { type: 'string' },
        n: { type: 'number' },
        i: { type: 'integer' },
        b: { type: 'boolean' },
        e: { enum: [1, 'two', null] },
        maybe: { type: ['string', 'null'] },
        o: { type: 'object', properties: { x: { type: 'string' } } },
        a: { type: 'array', items: { type: 'integer' } },
        ref: { $ref: '#/definitions/x' },
        union: { type: ['string', 'number'] },
        nested: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
      },
    })!;
    expect(kinds(fields)).toEqual({
      s: 'text',
      n: 'number',
      i: 'integer',
      b: 'boolean',
      e: 'enum',
      maybe: 'text',
      o: 'object',
      a: 'array',
      ref: 'json',
      union: 'json',
      nested: 'array',
    });
    const nested = fields.find((field) => field.key === 'nested')!;
    expect(nested.kind === 'array' && nested.template.kind).toBe('json');
  });

  it('gives only the raw JSON form to a schema that is not an object of properties', () => {
    expect(schemaForm({ type: 'array' })).toBeNull();
    expect(schemaForm({ oneOf: [{ type: 'object' }] })).toBeNull();
  });

  it('stays within its depth and size', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < MAX_FORM_DEPTH + 3; level++)
      deep = { type: 'object', properties: { down: deep } };
    let field = schemaForm(deep)![0]!;
    let depth = 1;
    while (field.kind === 'object') {
      field = field.fields[0]!;
      depth++;
    }
    expect(field.kind).toBe('json');
    expect(depth).toBeLessThanOrEqual(MAX_FORM_DEPTH + 1);

    const wide = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: MAX_FORM_FIELDS + 50 }, (_, n) => [`p${n}`, { type: 'string' }]),
      ),
    };
    const drawn = schemaForm(wide)!;
    expect(drawn.filter((f) => f.kind === 'text')).toHaveLength(MAX_FORM_FIELDS);
    expect(drawn.filter((f) => f.kind === 'json')).toHaveLength(50);
  });
});

describe('formArguments', () => {
  const schema = {
    type: 'object',
    properties: {
      'a.b': { type: 'string' },
      count: { type: 'integer' },
      flag: { type: 'boolean' },
      level: { enum: [1, 2, 3] },
      where: { type: 'object', properties: { city: { type: 'string' } } },
      tags: { type: 'array', items: { type: 'string' } },
      raw: { anyOf: [{ type: 'string' }] },
      name: { type: 'string' },
    },
    required: ['name'],
  };

  it('reads the form back, leaving out what was left empty', () => {
    const fields = schemaForm(schema)!;
    const body: FormBody = {
      'arg.a%2Eb': 'dotted',
      'arg.count': '7',
      'arg.flag': 'false',
      'arg.level': '1',
      'arg.where.city': '',
      'arg.tags.0': 'x',
      'arg.tags.5': 'y',
      'arg.tags.7': '',
      'arg.raw': '{"k": [1]}',
      'arg.name': '',
    };
    expect(formArguments(fields, body)).toEqual({
      ok: true,
      arguments: {
        'a.b': 'dotted',
        count: 7,
        flag: false,
        level: 2,
        tags: ['x', 'y'],
        raw: { k: [1] },
        name: '',
      },
    });
  });

  it('says what is wrong, and draws the values again', () => {
    const fields = schemaForm(schema)!;
    const read = formArguments(fields, { 'arg.count': 'many', 'arg.raw': '{', 'arg.level': '9' });
    expect(read.ok).toBe(false);
    expect(!read.ok && read.error).toBe(
      'The form has mistakes: count is not a number; level is not one of its options; raw is not valid JSON.',
    );
    const again = schemaForm(schema, { tags: ['p', 'q'], level: 3 })!;
    const tags = again.find((field) => field.key === 'tags')!;
    expect(
      tags.kind === 'array' && tags.items.map((item) => item.kind === 'text' && item.value),
    ).toEqual(['p', 'q']);
    const level = again.find((field) => field.key === 'level')!;
    expect(
      level.kind === 'enum' && level.options.filter((o) => o.selected).map((o) => o.label),
    ).toEqual(['3']);
  });
});
