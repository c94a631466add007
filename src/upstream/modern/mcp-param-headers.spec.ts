import {
  encodeHeaderValue,
  headerParamsOf,
  headerParamValues,
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
