import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import {
  classifyUpstreamError,
  UpstreamFailure,
  UpstreamRpcError,
} from '../upstream/upstream-error';
import { errorResponse, fromUpstream, RpcError, UPSTREAM_UNAVAILABLE } from './mcp-errors';

describe('fromUpstream', () => {
  it('explains an unreachable upstream without the credentials it echoed', () => {
    const echoed = new UpstreamFailure(
      'http',
      'HTTP 500: upstream saw Authorization: Bearer tok-123456',
      500,
    );
    const error = fromUpstream(classifyUpstreamError(echoed, 1000, ['tok-123456']), 'crm', 1000);
    expect(error.code).toBe(UPSTREAM_UNAVAILABLE);
    expect(error.message).toBe(
      "Upstream 'crm' is unavailable: HTTP 500: upstream saw Authorization: Bearer [redacted]",
    );
  });

  it('passes an error the upstream answered with through as it was', () => {
    const error = fromUpstream(
      new UpstreamRpcError(ErrorCode.InvalidParams, 'bad city', { field: 'city' }),
      'crm',
      1000,
    );
    expect(error).toMatchObject({ code: ErrorCode.InvalidParams, message: 'bad city' });
    expect(error.data).toEqual({ field: 'city' });
  });

  it('names the timeout', () => {
    expect(fromUpstream(new UpstreamFailure('timeout', 'late'), 'crm', 1500).message).toBe(
      "Upstream 'crm' did not answer within 1500 ms",
    );
  });
});

describe('errorResponse', () => {
  it('answers a known error with its code, message and data', () => {
    expect(errorResponse(7, new RpcError(-32002, 'Resource not found: x', { uri: 'x' }))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32002, message: 'Resource not found: x', data: { uri: 'x' } },
    });
  });

  it('hides anything unexpected behind a bare internal error', () => {
    expect(errorResponse('a', new Error('stack and secrets'))).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      error: { code: ErrorCode.InternalError, message: 'Internal error' },
    });
  });
});
