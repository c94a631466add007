import { type JSONRPCMessage } from '@modelcontextprotocol/client';
import { boundMessage, refusalOf } from './message-bounds';
import { UpstreamFailure } from '../upstream-error';

function deepObject(depth: number): Record<string, unknown> {
  let deep: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) deep = { a: deep };
  return deep;
}

const message = (value: unknown) => value as JSONRPCMessage;

describe('boundMessage', () => {
  it('passes a message within the limit as it is', () => {
    const within = message({ jsonrpc: '2.0', id: 1, result: { data: deepObject(13) } });
    expect(boundMessage(within, 16)).toBe(within);
  });

  it('refuses a deep message that is no list, naming the limit', () => {
    const failure = boundMessage(
      message({ jsonrpc: '2.0', method: 'notifications/message', params: deepObject(10_000) }),
      16,
    );
    expect(failure).toBeInstanceOf(UpstreamFailure);
    expect(failure).toMatchObject({
      kind: 'protocol',
      message:
        'the upstream sent a message nested more than 16 levels deep, past the limit (JSON_MAX_DEPTH)',
    });
  });

  it('cuts each too-deep entry of every list to its key, and keeps the others', () => {
    const bounded = boundMessage(
      message({
        jsonrpc: '2.0',
        id: 1,
        result: {
          resources: [
            { uri: 'file:///fine', name: 'fine' },
            { uri: 'file:///deep', name: 'deep', _meta: deepObject(5000) },
          ],
          resourceTemplates: [{ uriTemplate: 'x://{id}', name: 't', _meta: deepObject(14) }],
        },
      }),
      16,
    ) as unknown as { result: { resources: unknown[]; resourceTemplates: unknown[] } };
    const [fine, deep] = bounded.result.resources;
    expect(refusalOf(fine)).toBeNull();
    expect(JSON.parse(JSON.stringify(deep))).toEqual({ uri: 'file:///deep', name: 'deep' });
    expect(refusalOf(deep)).toContain('nested more than 13 levels deep');
    expect(refusalOf(bounded.result.resourceTemplates[0])).toContain('JSON_MAX_DEPTH 16');
  });

  it('refuses a list result whose other members are too deep as well', () => {
    const failure = boundMessage(
      message({ jsonrpc: '2.0', id: 1, result: { tools: [], _meta: deepObject(100) } }),
      16,
    );
    expect(failure).toBeInstanceOf(UpstreamFailure);
  });
});
