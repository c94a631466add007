import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { UpstreamError, upstreamError } from './upstream-error';

describe('upstreamError', () => {
  it('names the network cause that fetch hides', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
      code: 'ECONNREFUSED',
    });
    expect(upstreamError(new TypeError('fetch failed', { cause: refused }), 1000).message).toBe(
      'fetch failed: connect ECONNREFUSED 127.0.0.1:9',
    );
  });

  it('turns an SDK timeout into the configured limit', () => {
    const timeout = new McpError(ErrorCode.RequestTimeout, 'Request timed out');
    expect(upstreamError(timeout, 2500).message).toBe('no answer within 2500 ms');
  });

  it('keeps the upstream’s own error and HTTP status', () => {
    expect(upstreamError(new McpError(ErrorCode.InternalError, 'boom'), 1).message).toBe(
      'the upstream answered with an error: MCP error -32603: boom',
    );
    expect(upstreamError(new StreamableHTTPError(401, 'unauthorized'), 1).message).toBe(
      'HTTP 401: Streamable HTTP error: unauthorized',
    );
  });

  it('recognises invalid JSON from another realm by name', () => {
    const foreign = { name: 'SyntaxError', message: 'Unexpected end of JSON input' };
    expect(upstreamError(foreign, 1).message).toBe(
      'the upstream sent invalid JSON (Unexpected end of JSON input)',
    );
  });

  it('keeps messages to one bounded line', () => {
    const message = upstreamError(new Error(`a\nb ${'x'.repeat(1000)}`), 1).message;
    expect(message).not.toContain('\n');
    expect(message.length).toBeLessThanOrEqual(501);
    expect(message.endsWith('…')).toBe(true);
  });

  it('cuts the credentials sent out of what the upstream echoed, before clipping', () => {
    const token = 's3cret-token-value';
    const echo = (padding: number) =>
      new StreamableHTTPError(401, `${'x'.repeat(padding)} Bearer ${token}; X-Key: k3y-value`);
    const secrets = [token, 'k3y-value', 'abc'];
    expect(upstreamError(echo(10), 1, secrets).message).toMatch(
      /Bearer \[redacted\]; X-Key: \[redacted\]$/,
    );
    // Clipped at 500 characters in the middle of the token: no part of it may show.
    expect(upstreamError(echo(450), 1, secrets).message).not.toContain('s3c');
    expect(upstreamError(new Error('abc is fine'), 1, secrets).message).toBe('abc is fine');
  });

  it('passes its own errors through', () => {
    const own = new UpstreamError('the upstream repeated a page cursor');
    expect(upstreamError(own, 1)).toBe(own);
  });
});
