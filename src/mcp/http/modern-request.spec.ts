import { classifyInboundRequest, type JSONRPCRequest } from '@modelcontextprotocol/server';
import { McpRefusal } from '../protocol/mcp-errors';
import { decodeHeaderValue, paramHeaderMismatch } from '../../upstream/modern/mcp-param-headers';
import { checkModernRequest, classifyClaim } from './modern-request';

const request = (method: string, params: Record<string, unknown> = {}): JSONRPCRequest => ({
  jsonrpc: '2.0',
  id: 9,
  method,
  params: {
    ...params,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

const STANDARD = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };

function refusal(run: () => void): McpRefusal {
  try {
    run();
  } catch (error) {
    if (error instanceof McpRefusal) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('modern request checks', () => {
  it('decodes base64 sentinels, and refuses ones that are not canonical', () => {
    expect(decodeHeaderValue('plain')).toBe('plain');
    const encoded = `=?base64?${Buffer.from('eu west ✓').toString('base64')}?=`;
    expect(decodeHeaderValue(encoded)).toBe('eu west ✓');
    expect(decodeHeaderValue('=?base64?not base64!?=')).toBeUndefined();
  });

  it('wants Mcp-Name to name what the body names, decoded', () => {
    const call = request('tools/call', { name: 'tool ✓' });
    const encoded = `=?base64?${Buffer.from('tool ✓').toString('base64')}?=`;
    expect(() => checkModernRequest(call, { ...STANDARD, 'mcp-name': encoded })).not.toThrow();
    const wrong = refusal(() => checkModernRequest(call, { ...STANDARD, 'mcp-name': 'other' }));
    expect([wrong.status, wrong.code, wrong.id]).toEqual([400, -32020, 9]);
    expect(refusal(() => checkModernRequest(call, STANDARD)).code).toBe(-32020);
  });

  it('answers a legacy-only method with 404 and -32601, after the header checks', () => {
    const ping = refusal(() =>
      checkModernRequest(request('ping'), { ...STANDARD, 'mcp-method': 'ping' }),
    );
    expect([ping.status, ping.code]).toEqual([404, -32601]);
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

  it('classifies as the SDK does, before and after it has seen an envelope', () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
      'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
    };
    const call = (meta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 't', _meta: meta },
      ...extra,
    });
    const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };
    const sdk = (body: unknown, sent: Record<string, string> = headers) =>
      classifyInboundRequest({
        httpMethod: 'POST',
        protocolVersionHeader: sent['mcp-protocol-version'],
        mcpMethodHeader: sent['mcp-method'],
        body,
      });
    const valid = call(envelope);
    // Twice: the first is the SDK's own answer, the second the remembered one.
    for (let i = 0; i < 2; i++) expect(classifyClaim(valid, headers)).toEqual(sdk(valid));
    // What differs from the remembered envelope in any way the schemas see is judged anew.
    const variants: [unknown, Record<string, string>?][] = [
      [call({ ...envelope, 'io.modelcontextprotocol/clientInfo': null })],
      [call({ ...envelope, 'io.modelcontextprotocol/clientInfo': undefined })],
      [call({ ...envelope, 'io.modelcontextprotocol/clientCapabilities': { elicitation: 1 } })],
      [call({ ...envelope, 'io.modelcontextprotocol/logLevel': 'loud' })],
      [call({ ...envelope, progressToken: { a: 1 } })],
      [call({ ...envelope, progressToken: 1.5 })],
      [call({ ...envelope, 'io.modelcontextprotocol/related-task': 7 })],
      [call(envelope, { extra: true })],
      [call(envelope, { id: null })],
      [call(envelope, { id: 1.5 })],
      [call(envelope, { jsonrpc: '1.0' })],
      [call(envelope, { result: {} })],
      [call(envelope, { method: 'initialize' })],
      [call(envelope, { params: { _meta: envelope, name: 't' }, method: 'tools/list' })],
      [[valid]],
      [valid, { ...headers, 'mcp-protocol-version': '2025-11-25' }],
      [valid, { ...headers, 'mcp-protocol-version': ' 2026-07-28' }],
      [valid, { ...headers, 'mcp-method': 'tools/list' }],
      [valid, { 'mcp-method': 'tools/call' }],
    ];
    for (const [body, sent] of variants)
      expect(classifyClaim(body, sent ?? headers)).toEqual(sdk(body, sent));
  });
});
