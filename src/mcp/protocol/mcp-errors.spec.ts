import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { JsonBodyRefusal } from '../../common/read-body';
import { JsonLimitError } from '../../common/json-value';
import {
  classifyUpstreamError,
  UpstreamAuthorizationRequired,
  UpstreamFailure,
  UpstreamRpcError,
  UpstreamTimeout,
} from '../../upstream/upstream-error';
import {
  errorResponse,
  fromUpstream,
  McpRefusal,
  refusalOf,
  RpcError,
  UPSTREAM_PROTOCOL_ERROR,
  UPSTREAM_UNAVAILABLE,
} from './mcp-errors';

describe('fromUpstream', () => {
  it('sends a user without a token of an OAuth upstream to the page that connects it', () => {
    const url = 'https://portico.example.com/admin/connections/5f0c';
    const failure = classifyUpstreamError(
      new UpstreamAuthorizationRequired('You have not connected your account.', url),
      1000,
      ['secret'],
    );
    const error = fromUpstream(failure, 'tickets');
    expect(error.code).toBe(ProtocolErrorCode.UrlElicitationRequired);
    expect(error.message).toContain(url);
    expect(error.data).toEqual({
      elicitations: [
        {
          mode: 'url',
          elicitationId: expect.stringMatching(/^[0-9a-f]{32}$/),
          url,
          message: "Connect your account at 'tickets' to use its tools.",
        },
      ],
    });
  });

  it('reports an OAuth upstream without a link as unavailable, with the reason', () => {
    const error = fromUpstream(
      new UpstreamAuthorizationRequired('This credential belongs to no Portico user.', null),
      'tickets',
    );
    expect(error.code).toBe(UPSTREAM_UNAVAILABLE);
    expect(error.message).toContain('belongs to no Portico user');
  });

  it("explains an upstream's HTTP error without the credentials it echoed", () => {
    const echoed = new UpstreamFailure(
      'http',
      'HTTP 500: upstream saw Authorization: Bearer tok-123456',
      500,
    );
    const error = fromUpstream(classifyUpstreamError(echoed, 1000, ['tok-123456']), 'crm');
    expect(error.code).toBe(UPSTREAM_UNAVAILABLE);
    expect(error.message).toBe(
      "Upstream 'crm' answered with an error: HTTP 500: upstream saw Authorization: Bearer [redacted]",
    );
    const down = fromUpstream(new UpstreamFailure('unreachable', 'connect ECONNREFUSED'), 'crm');
    expect(down.code).toBe(UPSTREAM_UNAVAILABLE);
    expect(down.message).toBe("Upstream 'crm' is unavailable: connect ECONNREFUSED");
  });

  it('tells an upstream that answered badly from one that is not there', () => {
    const error = fromUpstream(
      new UpstreamFailure('protocol', 'the upstream sent invalid JSON (Unexpected token)'),
      'crm',
    );
    expect(error.code).toBe(UPSTREAM_PROTOCOL_ERROR);
    expect(error.message).toBe(
      "Upstream 'crm' answered with a message Portico cannot use: the upstream sent invalid JSON (Unexpected token)",
    );
  });

  it('passes an error the upstream answered with through as it was', () => {
    const error = fromUpstream(
      new UpstreamRpcError(ProtocolErrorCode.InvalidParams, 'bad city', { field: 'city' }),
      'crm',
    );
    expect(error).toMatchObject({ code: ProtocolErrorCode.InvalidParams, message: 'bad city' });
    expect(error.data).toEqual({ field: 'city' });
  });

  it("does not blame a healthy upstream for Portico's own failure", () => {
    const failure = classifyUpstreamError(new RangeError('Maximum call stack size exceeded'), 1);
    const error = fromUpstream(failure, 'alpha');
    expect({ code: error.code, message: error.message }).toEqual({
      code: ProtocolErrorCode.InternalError,
      message:
        "The request failed in Portico, not at upstream 'alpha': Maximum call stack size exceeded",
    });
  });

  it('names the timeout the exchange had, however it timed out', () => {
    expect(fromUpstream(new UpstreamTimeout(400), 'crm').message).toBe(
      "Upstream 'crm' did not answer within 400 ms",
    );
    const aborted = Object.assign(new Error('aborted'), { name: 'TimeoutError' });
    expect(fromUpstream(classifyUpstreamError(aborted, 1500), 'crm')).toMatchObject({
      code: -32001,
      message: "Upstream 'crm' did not answer within 1500 ms",
    });
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
      error: { code: ProtocolErrorCode.InternalError, message: 'Internal error' },
    });
  });

  it('says which limit the request ran into', () => {
    expect(errorResponse(3, new JsonLimitError('the arguments are nested too deep'))).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: ProtocolErrorCode.InternalError,
        message: 'The request could not be handled: the arguments are nested too deep',
      },
    });
  });
});

describe('refusalOf', () => {
  it('answers a body that is not JSON with the parse error, and one too deep with its id', () => {
    const parse = refusalOf(new JsonBodyRefusal(400, 'not-json', 'Parse error'));
    expect(parse).toMatchObject({ status: 400, code: ProtocolErrorCode.ParseError, id: null });
    const deep = refusalOf(new JsonBodyRefusal(400, 'too-deep', 'too deep', { id: 'r-7' }));
    expect(deep).toMatchObject({ status: 400, code: ProtocolErrorCode.InvalidRequest, id: 'r-7' });
    const badId = refusalOf(new JsonBodyRefusal(400, 'too-deep', 'too deep', { id: 1.5 }));
    expect(badId?.id).toBeNull();
  });

  it('keeps the status of a body refused for its size or encoding', () => {
    expect(refusalOf(new JsonBodyRefusal(413, 'too-large', 'large'))?.status).toBe(413);
    expect(refusalOf(new JsonBodyRefusal(415, 'encoding', 'gzip'))?.status).toBe(415);
  });

  it('passes a refusal on as it is, and calls nothing else a refusal', () => {
    const refusal = new McpRefusal(404, 'No such virtual server');
    expect(refusalOf(refusal)).toBe(refusal);
    expect(refusalOf(new Error('bug'))).toBeNull();
  });
});
