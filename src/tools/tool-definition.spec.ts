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
