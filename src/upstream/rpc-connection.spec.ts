import { type JSONRPCResponse } from '@modelcontextprotocol/client';
import { resultOf } from './rpc-connection';
import { UpstreamFailure, UpstreamRpcError } from './upstream-error';

const answer = (body: Record<string, unknown>) =>
  ({ jsonrpc: '2.0', id: 1, ...body }) as unknown as JSONRPCResponse;

function failureOf(response: JSONRPCResponse): unknown {
  try {
    resultOf(response);
  } catch (error) {
    return error;
  }
  return null;
}

describe('resultOf', () => {
  it('returns a result object, and throws a JSON-RPC error as the upstream’s own', () => {
    expect(resultOf(answer({ result: { content: [] } }))).toEqual({ content: [] });
    const error = failureOf(answer({ error: { code: -32602, message: 'bad', data: { x: 1 } } }));
    expect(error).toBeInstanceOf(UpstreamRpcError);
    expect(error).toMatchObject({ code: -32602, message: 'bad', data: { x: 1 } });
  });

  it.each([null, 42, 'x', [], true])(
    'refuses a result that is %p as a protocol failure',
    (result) => {
      const failure = failureOf(answer({ result }));
      expect(failure).toBeInstanceOf(UpstreamFailure);
      expect(failure).toMatchObject({
        kind: 'protocol',
        message: 'the upstream answered with a result that is not an object',
      });
    },
  );

  it.each([null, 'x', [], { code: 'a', message: 'm' }, { code: 1.5, message: 'm' }, { code: 1 }])(
    'refuses an error that is %p as a protocol failure',
    (error) => {
      const failure = failureOf(answer({ error }));
      expect(failure).toBeInstanceOf(UpstreamFailure);
      expect(failure).toMatchObject({
        kind: 'protocol',
        message: 'the upstream answered with a malformed error',
      });
    },
  );
});
