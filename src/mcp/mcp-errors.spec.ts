import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { UPSTREAM_UNAVAILABLE, upstreamFailure, UpstreamSessionGone } from './mcp-errors';

describe('upstreamFailure', () => {
  it('explains an unreachable upstream without the credentials it echoed', () => {
    const echoed = new StreamableHTTPError(500, 'upstream saw Authorization: Bearer tok-123456');
    const error = upstreamFailure(echoed, 'crm', 1000, ['tok-123456']);
    expect(error.code).toBe(UPSTREAM_UNAVAILABLE);
    expect(error.message).toBe(
      "Upstream 'crm' is unavailable: HTTP 500: Streamable HTTP error: upstream saw Authorization: Bearer [redacted]",
    );
  });

  it('passes an error the upstream answered with through as it was', () => {
    const error = upstreamFailure(
      new McpError(ErrorCode.InvalidParams, 'bad city', { field: 'city' }),
      'crm',
      1000,
    );
    expect(error).toMatchObject({ code: ErrorCode.InvalidParams, message: 'bad city' });
    expect(error.data).toEqual({ field: 'city' });
  });

  it('reports a lost upstream session, which a new session may retry', () => {
    expect(upstreamFailure(new StreamableHTTPError(404, 'gone'), 'crm', 1000)).toBeInstanceOf(
      UpstreamSessionGone,
    );
  });

  it('names the timeout', () => {
    const timedOut = new McpError(ErrorCode.RequestTimeout, 'Request timed out');
    expect(upstreamFailure(timedOut, 'crm', 1500).message).toBe(
      "Upstream 'crm' did not answer within 1500 ms",
    );
  });
});
