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

  const RESULT = 'the upstream answered with a result that is not an object';
  const ERROR = 'the upstream answered with a malformed error';
  it.each([
    [{ result: null }, RESULT],
    [{ result: 42 }, RESULT],
    [{ result: 'x' }, RESULT],
    [{ result: [] }, RESULT],
    [{ result: true }, RESULT],
    [{ error: null }, ERROR],
    [{ error: 'x' }, ERROR],
    [{ error: [] }, ERROR],
    [{ error: { code: 'a', message: 'm' } }, ERROR],
    [{ error: { code: 1.5, message: 'm' } }, ERROR],
    [{ error: { code: 1 } }, ERROR],
  ])('refuses %p as a protocol failure', (body, message) => {
    const failure = failureOf(answer(body));
    expect(failure).toBeInstanceOf(UpstreamFailure);
    expect(failure).toMatchObject({ kind: 'protocol', message });
  });
});
