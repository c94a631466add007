import {
  decodeHeaderValue,
  encodeHeaderValue,
  headerParamsOf,
  headerParamValues,
  paramHeaderMismatch,
  requestHeaders,
  standardHeaderMismatch,
  ToolHeaderParams,
} from './mcp-param-headers';

const schema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    priority: { type: 'integer', 'x-mcp-header': 'Priority' },
    nested: { type: 'object', properties: { flag: { type: 'boolean', 'x-mcp-header': 'Flag' } } },
    plain: { type: 'string' },
  },
};

describe('Mcp-Param-* headers', () => {
  it('mirrors annotated arguments, nested ones too, and omits absent ones', () => {
    const scan = headerParamsOf(schema);
    if (!scan.valid) throw new Error(scan.reason);
    expect(
      headerParamValues(scan.params, { region: 'eu', nested: { flag: true }, plain: 'x' }),
    ).toEqual({ 'mcp-param-region': 'eu', 'mcp-param-flag': 'true' });
    expect(headerParamValues(scan.params, { priority: 3 })).toEqual({ 'mcp-param-priority': '3' });
  });

  it('sends values that are not plain header text as base64', () => {
    expect(encodeHeaderValue('eu-west')).toBe('eu-west');
    expect(encodeHeaderValue(' padded')).toBe(
      `=?base64?${Buffer.from(' padded').toString('base64')}?=`,
    );
    expect(encodeHeaderValue('✓')).toBe(`=?base64?${Buffer.from('✓').toString('base64')}?=`);
    expect(encodeHeaderValue('line\nbreak')).toMatch(/^=\?base64\?/);
    expect(encodeHeaderValue('')).toMatch(/^=\?base64\?/);
  });

  it('finds invalid annotations: not a token, a number, unreachable, twice', () => {
    const invalid = (property: object) =>
      headerParamsOf({ type: 'object', properties: { a: property } }).valid;
    expect(invalid({ type: 'string', 'x-mcp-header': 'Bad Name' })).toBe(false);
    expect(invalid({ type: 'number', 'x-mcp-header': 'N' })).toBe(false);
    expect(invalid({ type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } })).toBe(
      false,
    );
    expect(
      headerParamsOf({
        type: 'object',
        properties: {
          a: { type: 'string', 'x-mcp-header': 'Same' },
          b: { type: 'string', 'x-mcp-header': 'same' },
        },
      }).valid,
    ).toBe(false);
  });

  it('learns each tool from a list, and says why an invalid one must not be used', () => {
    const params = new ToolHeaderParams();
    params.learn(
      [
        { name: 'good', inputSchema: schema },
        {
          name: 'bad',
          inputSchema: { properties: { a: { type: 'number', 'x-mcp-header': 'A' } } },
        },
      ],
      true,
    );
    expect(params.loaded).toBe(true);
    expect(params.of('good').map((param) => param.header)).toEqual(['Region', 'Priority', 'Flag']);
    expect(params.of('bad')).toEqual([]);
    expect(params.of('unknown')).toEqual([]);
    expect(params.fault('good')).toBeNull();
    expect(params.fault('bad')).toBe(
      'a: x-mcp-header only on string, integer or boolean properties',
    );
    expect(params.fault('unknown')).toBeNull();
  });
});

describe("a received request's headers against its body", () => {
  const STANDARD = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };

  it('decodes base64 sentinels, and refuses ones that are not canonical', () => {
    expect(decodeHeaderValue('plain')).toBe('plain');
    const encoded = `=?base64?${Buffer.from('eu west ✓').toString('base64')}?=`;
    expect(decodeHeaderValue(encoded)).toBe('eu west ✓');
    expect(decodeHeaderValue('=?base64?not base64!?=')).toBeUndefined();
  });

  it('wants the version and method headers, and Mcp-Name to name what the body names, decoded', () => {
    const params = { name: 'tool ✓' };
    const encoded = `=?base64?${Buffer.from('tool ✓').toString('base64')}?=`;
    expect(
      standardHeaderMismatch('tools/call', params, { ...STANDARD, 'mcp-name': encoded }),
    ).toBeNull();
    expect(
      standardHeaderMismatch('tools/call', params, { ...STANDARD, 'mcp-name': 'other' }),
    ).toEqual({ header: 'other', message: 'params.name is "tool ✓" but Mcp-Name names "other"' });
    expect(standardHeaderMismatch('tools/call', params, STANDARD)).toEqual({
      header: '(missing)',
      message: 'params.name is "tool ✓" but Mcp-Name is absent',
    });
    expect(
      standardHeaderMismatch('tools/call', params, { ...STANDARD, 'mcp-name': '=?base64?x?=' })
        ?.message,
    ).toBe('Mcp-Name carries an invalid Base64 sentinel');
    expect(
      standardHeaderMismatch('tools/list', {}, { 'mcp-protocol-version': '2026-07-28' })?.message,
    ).toBe('the required Mcp-Method header is absent');
    expect(standardHeaderMismatch('tools/list', {}, { 'mcp-method': 'tools/list' })?.message).toBe(
      'the required MCP-Protocol-Version header is absent',
    );
    // What names nothing in its body needs no Mcp-Name, whatever its params; a task is named by
    // its id.
    expect(standardHeaderMismatch('tools/list', {}, STANDARD)).toBeNull();
    expect(
      standardHeaderMismatch('toString', { [String(Object.prototype.toString)]: 'x' }, STANDARD),
    ).toBeNull();
    expect(standardHeaderMismatch('tasks/get', { taskId: 't-1' }, STANDARD)?.message).toBe(
      'params.taskId is "t-1" but Mcp-Name is absent',
    );
  });

  it('names in Mcp-Name what a sent request names, as the received one is checked', () => {
    const tools = new ToolHeaderParams();
    for (const [method, params] of [
      ['tools/call', { name: 'a b ✓' }],
      ['resources/read', { uri: 'file:///x' }],
      ['tasks/cancel', { taskId: 't-1' }],
      ['tools/list', {}],
    ] as const) {
      const headers = {
        'mcp-protocol-version': '2026-07-28',
        ...requestHeaders(method, params, tools),
      };
      expect(standardHeaderMismatch(method, params, headers)).toBeNull();
    }
  });

  it('compares Mcp-Param-* numerically for numbers, as text otherwise, and skips absent ones', () => {
    const declared = [
      { path: ['priority'], header: 'Priority' },
      { path: ['region'], header: 'Region' },
    ];
    const args = { priority: 3 };
    const sent = (headers: Record<string, string>) => (name: string) => headers[name];
    expect(paramHeaderMismatch(args, declared, sent({ 'mcp-param-priority': '3.0' }))).toBeNull();
    expect(paramHeaderMismatch(args, declared, sent({}))).toMatchObject({
      header: 'Mcp-Param-Priority',
    });
    expect(
      paramHeaderMismatch(args, declared, sent({ 'mcp-param-priority': '4' }))?.message,
    ).toMatch(/decodes to "4" but priority is 3/);
  });
});
