import { argumentsTemplate, checkToolArguments } from './tool-arguments';

describe('checkToolArguments', () => {
  const schema = {
    type: 'object',
    properties: { text: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
    required: ['text'],
  };

  it('accepts arguments that match the schema', () => {
    expect(checkToolArguments('{"text":"hi","count":2}', schema)).toEqual({
      ok: true,
      arguments: { text: 'hi', count: 2 },
      warning: null,
    });
  });

  it('names every mismatch', () => {
    const check = checkToolArguments('{"count":0}', schema);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.error).toMatch(/must have required property 'text'/);
    expect(check.error).toMatch(/arguments\/count must be >= 1/);
  });

  it("never runs an upstream's regular expressions on the caller's input", () => {
    const hostile = {
      type: 'object',
      properties: {
        q: { type: 'string', pattern: '^(a+)+$' },
        pattern: { type: 'integer' },
        tags: { type: 'object', patternProperties: { '^(a+)+$': { type: 'string' } } },
      },
    };
    const started = Date.now();
    const check = checkToolArguments(
      JSON.stringify({ q: `${'a'.repeat(40)}!`, pattern: 1, tags: { [`${'a'.repeat(40)}!`]: 1 } }),
      hostile,
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(check).toMatchObject({ ok: true, warning: expect.stringContaining('not run here') });
    // The rest of the schema is still checked, a property named `pattern` included.
    expect(checkToolArguments('{"pattern":"x"}', hostile)).toMatchObject({ ok: false });
  });

  it('refuses what is not a JSON object', () => {
    expect(checkToolArguments('{"text":', schema)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not valid JSON/),
    });
    expect(checkToolArguments('[1]', schema)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/JSON object/),
    });
  });

  it('treats an empty box as no arguments', () => {
    expect(checkToolArguments('  ', { type: 'object' })).toMatchObject({ ok: true, arguments: {} });
    expect(checkToolArguments('', schema)).toMatchObject({ ok: false });
  });

  it('follows the declared dialect and checks formats', () => {
    const modern = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
        at: { type: 'string', format: 'date-time' },
      },
    };
    expect(checkToolArguments('{"pair":["a",1]}', modern).ok).toBe(true);
    expect(checkToolArguments('{"pair":[1,1]}', modern).ok).toBe(false);
    expect(checkToolArguments('{"at":"yesterday"}', modern).ok).toBe(false);
  });

  it('sends unchecked, with a warning, what Ajv cannot compile', () => {
    const check = checkToolArguments('{"a":1}', {
      type: 'object',
      properties: { a: { $ref: 'https://example.com/remote.json' } },
    });
    expect(check).toMatchObject({
      ok: true,
      arguments: { a: 1 },
      warning: expect.stringMatching(/unchecked/),
    });
  });

  it('does not share $id between tools', () => {
    const first = { $id: 'urn:same', type: 'object', required: ['a'] };
    const second = { $id: 'urn:same', type: 'object', required: ['b'] };
    expect(checkToolArguments('{"a":1}', first).ok).toBe(true);
    expect(checkToolArguments('{"b":1}', second).ok).toBe(true);
  });
});

describe('argumentsTemplate', () => {
  it('fills the required arguments with blank values of their types', () => {
    const template = argumentsTemplate({
      type: 'object',
      properties: {
        text: { type: 'string' },
        count: { type: 'integer', default: 3 },
        mode: { enum: ['fast', 'slow'] },
        flags: { type: ['array', 'null'] },
        optional: { type: 'string' },
      },
      required: ['text', 'count', 'mode', 'flags', 'unknown'],
    });
    expect(JSON.parse(template)).toEqual({
      text: '',
      count: 3,
      mode: 'fast',
      flags: [],
      unknown: null,
    });
  });

  it('is an empty object without required arguments', () => {
    expect(argumentsTemplate({ type: 'object' })).toBe('{}');
  });
});
