import { McpRefusal } from '../protocol/mcp-errors';
import { incomingOf } from './session.endpoint';

function refusal(body: unknown): McpRefusal {
  try {
    incomingOf(body);
  } catch (error) {
    if (error instanceof McpRefusal) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('a 2025 message as a POST holds it', () => {
  it('tells requests, notifications and responses apart', () => {
    expect(incomingOf({ jsonrpc: '2.0', id: 'a', method: 'tools/list' }).kind).toBe('request');
    expect(incomingOf({ jsonrpc: '2.0', id: 7, method: 'ping', params: {} }).kind).toBe('request');
    expect(incomingOf({ jsonrpc: '2.0', method: 'notifications/initialized' }).kind).toBe(
      'notification',
    );
    expect(incomingOf({ jsonrpc: '2.0', id: 3, result: {} }).kind).toBe('response');
  });

  it('takes as a request id only a string or an integer that JSON carries exactly', () => {
    for (const id of [null, 1.5, 2 ** 60, { a: 1 }, true]) {
      const refused = refusal({ jsonrpc: '2.0', id, method: 'tools/list' });
      expect([refused.status, refused.code, refused.message, refused.id]).toEqual([
        400,
        -32600,
        'id must be a string or an integer',
        null,
      ]);
    }
    expect(refusal({ jsonrpc: '2.0', id: 2 ** 60, result: {} }).message).toBe(
      'Not a JSON-RPC request, notification or response',
    );
  });

  it('refuses what is no JSON-RPC message, with the id when it has one', () => {
    expect(refusal([{ jsonrpc: '2.0', id: 1, method: 'ping' }]).message).toBe(
      'Batches are not supported',
    );
    expect(refusal({ jsonrpc: '1.0', id: 4, method: 'ping' })).toMatchObject({
      message: 'jsonrpc must be "2.0"',
      id: 4,
    });
    for (const params of [3, [1, 2], null])
      expect(refusal({ jsonrpc: '2.0', id: 'x', method: 'ping', params })).toMatchObject({
        message: 'params must be an object',
        id: 'x',
      });
    expect(refusal({ jsonrpc: '2.0', method: 'n', params: { _meta: [] } })).toMatchObject({
      message: 'params._meta must be an object',
    });
    for (const progressToken of [{ a: 1 }, 1.5, null])
      expect(
        refusal({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { _meta: { progressToken } },
        }).message,
      ).toBe('params._meta.progressToken must be a string or an integer');
  });
});
