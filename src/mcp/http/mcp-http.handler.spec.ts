import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { classifyClaim } from './mcp-http.handler';

describe('classifying a POST that claims the 2026-07-28 wire', () => {
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
