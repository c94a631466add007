import { admitToolDefinition, DEFINITION_BYTES_LIMIT, DESCRIPTION_LIMIT } from './tool-definition';

const valid = { name: 'get_time', description: 'Gets the time', inputSchema: { type: 'object' } };

describe('admitToolDefinition', () => {
  it('admits a valid definition unchanged', () => {
    const admission = admitToolDefinition({ ...valid, _meta: { ui: { resourceUri: 'ui://x' } } });
    expect(admission).toEqual({
      ok: true,
      warnings: [],
      tool: {
        name: 'get_time',
        title: null,
        description: 'Gets the time',
        inputSchema: { type: 'object' },
        outputSchema: null,
        annotations: null,
        meta: { ui: { resourceUri: 'ui://x' } },
      },
    });
  });

  it('stores script in a description as plain text', () => {
    const admission = admitToolDefinition({ ...valid, description: '<script>alert(1)</script>' });
    expect(admission.ok && admission.tool.description).toBe('<script>alert(1)</script>');
  });

  it.each([
    ['a name with a space', { ...valid, name: 'get time' }, 'MCP tool-name rule'],
    ['a missing name', { ...valid, name: undefined }, 'not a string'],
    ['a numeric name', { ...valid, name: 42 }, 'not a string'],
    ['a name over 128 characters', { ...valid, name: 'x'.repeat(129) }, 'MCP tool-name rule'],
    ['a string input schema', { ...valid, inputSchema: 'object' }, 'inputSchema'],
    ['an array input schema', { ...valid, inputSchema: [] }, 'inputSchema'],
    ['a non-object schema type', { ...valid, inputSchema: { type: 'string' } }, 'inputSchema'],
    ['a non-object output schema', { ...valid, outputSchema: 3 }, 'outputSchema'],
  ])('refuses %s', (_case, raw, reason) => {
    const admission = admitToolDefinition(raw);
    expect(admission.ok).toBe(false);
    expect(!admission.ok && admission.reason).toContain(reason);
  });

  it('refuses a definition over the size limit', () => {
    const huge = { type: 'object', description: 'x'.repeat(DEFINITION_BYTES_LIMIT) };
    const admission = admitToolDefinition({ ...valid, inputSchema: huge });
    expect(!admission.ok && admission.reason).toMatch(/over the 262144-byte limit/);
  });

  it('truncates a 5 MB description and says so', () => {
    const admission = admitToolDefinition({ ...valid, description: 'd'.repeat(5 * 1024 * 1024) });
    expect(admission.ok).toBe(true);
    if (!admission.ok) return;
    expect(admission.tool.description).toHaveLength(DESCRIPTION_LIMIT);
    expect(admission.warnings).toEqual([
      `description truncated from 5242880 to ${DESCRIPTION_LIMIT} characters`,
    ]);
  });

  it('removes NUL characters from text, which PostgreSQL cannot store, and says so', () => {
    const admission = admitToolDefinition({ ...valid, title: 'T\0', description: 'a\0b\0' });
    expect(admission.ok && admission.tool).toMatchObject({ title: 'T', description: 'ab' });
    expect(admission.ok && admission.warnings).toEqual([
      'description contained NUL characters, which were removed',
      'title contained NUL characters, which were removed',
    ]);
  });

  it.each([
    ['a schema value', { type: 'object', description: 'a\0b' }, undefined],
    ['a schema key', { type: 'object', properties: { 'a\0': {} } }, undefined],
    ['_meta', { type: 'object' }, { note: ['\0'] }],
  ])('refuses a NUL character in %s', (_case, inputSchema, meta) => {
    const admission = admitToolDefinition({ ...valid, inputSchema, _meta: meta });
    expect(!admission.ok && admission.reason).toBe(
      'the definition contains NUL characters (U+0000)',
    );
  });

  it('replaces unpaired surrogates in text and refuses them in schemas', () => {
    const text = admitToolDefinition({ ...valid, description: 'a\uD800b\uDC00c\uD83D\uDE00' });
    expect(text.ok && text.tool.description).toBe('a\uFFFDb\uFFFDc\uD83D\uDE00');
    expect(text.ok && text.warnings).toEqual([
      'description contained unpaired UTF-16 surrogates, which were replaced by U+FFFD',
    ]);
    const schema = admitToolDefinition({
      ...valid,
      inputSchema: { type: 'object', properties: { '\uDC00': {} } },
    });
    expect(!schema.ok && schema.reason).toBe('the definition contains unpaired UTF-16 surrogates');
  });

  it('accepts an escaped backslash-u sequence, which is just text', () => {
    const admission = admitToolDefinition({
      ...valid,
      inputSchema: { type: 'object', description: 'literally \\u0000' },
    });
    expect(admission.ok).toBe(true);
  });

  it('drops malformed optional members with a warning', () => {
    const admission = admitToolDefinition({
      ...valid,
      annotations: 'x',
      _meta: [1],
      description: 5,
    });
    expect(admission.ok && admission.tool).toMatchObject({
      annotations: null,
      meta: null,
      description: '',
    });
    expect(admission.ok && admission.warnings).toHaveLength(3);
  });
});
