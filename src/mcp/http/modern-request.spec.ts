import { type JSONRPCRequest } from '@modelcontextprotocol/server';
import { McpRefusal } from '../protocol/mcp-errors';
import { decodeHeaderValue, paramHeaderMismatch } from '../../upstream/modern/mcp-param-headers';
import { checkModernRequest } from './modern-request';

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
});
