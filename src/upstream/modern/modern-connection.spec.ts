import { answeringRounds } from '../input-rounds';
import { type JSONRPCRequest, type JSONRPCResponse } from '@modelcontextprotocol/client';
import { StubChannel } from '../../../test/support/stub-channel';
import { type Channel, type ChannelRequestOptions } from '../transport/channel';
import { probeEra } from '../eras/era-probe';
import { ToolHeaderParams } from './mcp-param-headers';
import { ModernConnection, type ModernConnectOptions } from './modern-connection';
import { UpstreamFailure, UpstreamRpcError } from '../upstream-error';

type Answer =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; data?: unknown } }
  | Error;

/** A channel that records each request with its headers and answers as `answer` says. */
class FakeChannel extends StubChannel {
  readonly sent: { message: JSONRPCRequest; headers: Record<string, string> }[] = [];

  constructor(private readonly answer: (message: JSONRPCRequest) => Answer) {
    super();
  }

  request(message: JSONRPCRequest, options: ChannelRequestOptions): Promise<JSONRPCResponse> {
    this.sent.push({ message, headers: options.headers ?? {} });
    const answer = this.answer(message);
    if (answer instanceof Error) return Promise.reject(answer);
    return Promise.resolve({ jsonrpc: '2.0', id: message.id, ...answer } as JSONRPCResponse);
  }
}

const DISCOVERED = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } };

function start(channel: Channel, options: Partial<ModernConnectOptions> = {}) {
  return ModernConnection.start(channel, {
    timeoutMs: 5_000,
    callMaxMs: 60_000,
    capabilities: { elicitation: {}, sampling: {} },
    secrets: [],
    version: '2026-07-28',
    discover: DISCOVERED,
    headerParams: new ToolHeaderParams(),
    doubt: () => undefined,
    pipe: false,
    ...options,
  });
}

describe('ModernConnection', () => {
  it('sends each request with the envelope and the standard headers, the caller’s _meta kept', async () => {
    const channel = new FakeChannel(() => ({ result: { resultType: 'complete', content: [] } }));
    const connection = await start(channel);
    await connection.request('logging/setLevel', { level: 'warning' });
    await connection.request('tools/call', {
      name: 'find account',
      arguments: {},
      _meta: { progressToken: 'p-1', traceparent: '00-abc-01' },
    });
    const [{ message, headers }] = channel.sent as [(typeof channel.sent)[number]];
    expect(message.params?._meta).toEqual({
      progressToken: 'p-1',
      traceparent: '00-abc-01',
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, sampling: {} },
      'io.modelcontextprotocol/clientInfo': { name: 'portico', version: '1.0.0' },
      'io.modelcontextprotocol/logLevel': 'warning',
    });
    expect(headers).toEqual({ 'mcp-method': 'tools/call', 'mcp-name': 'find account' });
  });

  it('passes an input_required result to a caller that relays it, and refuses it to others', async () => {
    const asking = {
      result: {
        resultType: 'input_required',
        inputRequests: { who: { method: 'elicitation/create', params: {} } },
        requestState: 'opaque',
      },
    };
    const connection = await start(new FakeChannel(() => asking));
    await expect(
      connection.request('tools/call', { name: 't' }, { allowInputRequired: true }),
    ).resolves.toMatchObject({ requestState: 'opaque' });
    const refused = await connection.request('tools/call', { name: 't' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UpstreamRpcError);
    expect((refused as Error).message).toMatch(/elicitation\/create.*only an MCP client/);
  });

  it("has its rounds answered as a 2025 client's would be, each retried with the answers", async () => {
    const channel = new FakeChannel((message) => {
      const params = message.params as {
        inputResponses?: Record<string, unknown>;
        requestState?: string;
      };
      if (!params.inputResponses)
        return {
          result: {
            resultType: 'input_required',
            inputRequests: {
              who: {
                method: 'elicitation/create',
                params: { message: 'Who?', requestedSchema: {} },
              },
              link: {
                method: 'elicitation/create',
                params: { mode: 'url', url: 'https://x', message: 'm' },
              },
            },
            requestState: 'one',
          },
        };
      if (params.requestState === 'one')
        return {
          result: {
            resultType: 'input_required',
            inputRequests: { roots: { method: 'roots/list' } },
            requestState: 'two',
          },
        };
      return { result: { resultType: 'complete', content: [], answers: params.inputResponses } };
    });
    const connection = await start(channel);
    const asked: { method: string; params?: Record<string, unknown> }[] = [];
    const result = await answeringRounds(
      (answers) =>
        connection.request('tools/call', { name: 't', ...answers }, { allowInputRequired: true }),
      (request) => {
        asked.push(request);
        return Promise.resolve({ answered: request.method });
      },
    );
    expect(asked.map((request) => request.method)).toEqual([
      'elicitation/create',
      'elicitation/create',
      'roots/list',
    ]);
    // A 2025 client needs an id for a URL-mode elicitation, which 2026-07-28 leaves out.
    expect(asked[1]!.params).toMatchObject({ mode: 'url', elicitationId: expect.any(String) });
    expect(result).toMatchObject({ answers: { roots: { answered: 'roots/list' } } });
    const retries = channel.sent.slice(1).map((sent) => sent.message.params);
    expect(retries[0]).toMatchObject({
      requestState: 'one',
      inputResponses: {
        who: { answered: 'elicitation/create' },
        link: { answered: 'elicitation/create' },
      },
    });
    expect(retries[1]).toMatchObject({ requestState: 'two' });
    expect(new Set(channel.sent.map((sent) => sent.message.id)).size).toBe(3);
  });

  it('gives up an upstream that keeps asking, or asks for what no round may hold', async () => {
    const answered = (connection: ModernConnection) =>
      answeringRounds(
        (answers) =>
          connection.request('tools/call', { name: 't', ...answers }, { allowInputRequired: true }),
        () => Promise.resolve({}),
      );
    const endless = await start(
      new FakeChannel(() => ({
        result: { resultType: 'input_required', inputRequests: {}, requestState: 'again' },
      })),
    );
    await expect(answered(endless)).rejects.toThrow(/asked for input more than 8 times/);
    const odd = await start(
      new FakeChannel(() => ({
        result: { resultType: 'input_required', inputRequests: { x: { method: 'tools/call' } } },
      })),
    );
    await expect(answered(odd)).rejects.toThrow(/unknown method/);
  });

  it('doubts its era and retires when the upstream refuses the version it states', async () => {
    const doubts: string[] = [];
    const connection = await start(
      new FakeChannel(() => ({
        error: { code: -32022, message: 'Unsupported', data: { supported: ['2025-11-25'] } },
      })),
      { doubt: (reason) => doubts.push(reason) },
    );
    await expect(connection.request('tools/list', {})).rejects.toBeInstanceOf(UpstreamRpcError);
    expect(doubts).toHaveLength(1);
    expect(connection.closed).toBe(true);
  });

  it('learns the tools’ Mcp-Param declarations after a header mismatch, and sends them', async () => {
    const schema = {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
    };
    const channel: FakeChannel = new FakeChannel((message): Answer => {
      if (message.method === 'tools/list')
        return { result: { tools: [{ name: 'geo', inputSchema: schema }] } };
      const headers = channel.sent.at(-1)!.headers;
      return headers['mcp-param-region'] === 'eu'
        ? { result: { content: [] } }
        : { error: { code: -32020, message: 'Mcp-Param-Region missing' } };
    });
    const connection = await start(channel);
    await connection.request('tools/call', { name: 'geo', arguments: { region: 'eu' } });
    expect(channel.sent.map(({ message }) => message.method)).toEqual([
      'tools/call',
      'tools/list',
      'tools/call',
    ]);
  });

  it('never calls a tool whose x-mcp-header annotations are invalid, and still calls the rest', async () => {
    const channel = new FakeChannel((message) =>
      message.method === 'tools/list'
        ? {
            result: {
              tools: [
                {
                  name: 'valid',
                  inputSchema: { properties: { r: { type: 'string', 'x-mcp-header': 'R' } } },
                },
                {
                  name: 'twice',
                  inputSchema: {
                    properties: {
                      a: { type: 'string', 'x-mcp-header': 'Same' },
                      b: { type: 'string', 'x-mcp-header': 'same' },
                    },
                  },
                },
              ],
            },
          }
        : { result: { content: [] } },
    );
    const connection = await start(channel);
    await connection.request('tools/list', {});
    const refused = await connection
      .request('tools/call', { name: 'twice', arguments: { a: 'x', b: 'y' } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UpstreamRpcError);
    expect(refused).toMatchObject({ code: -32602 });
    expect((refused as Error).message).toMatch(/'twice'.*declared twice/);
    await connection.request('tools/call', { name: 'valid', arguments: { r: 'eu' } });
    expect(channel.sent.map(({ message }) => message.params?.name ?? message.method)).toEqual([
      'tools/list',
      'valid',
    ]);
    expect(channel.sent[1]!.headers['mcp-param-r']).toBe('eu');
  });
});

describe('the era probe', () => {
  const probe = (answer: (message: JSONRPCRequest) => Answer, pipe = false) =>
    probeEra(() => start(new FakeChannel(answer), { discover: null }), pipe);

  it('takes a DiscoverResult for modern and keeps the connection', async () => {
    const probed = await probe(() => ({ result: DISCOVERED }));
    expect(probed.verdict).toMatchObject({ era: '2026-07-28', version: '2026-07-28' });
    expect(probed.connection).not.toBeNull();
  });

  it('takes -32022 by its supported list, and any other HTTP 4xx for 2025', async () => {
    const unsupported = await probe(() => ({
      error: { code: -32022, message: 'no', data: { supported: ['2099-01-01'] } },
    }));
    expect(unsupported.verdict).toMatchObject({
      era: 'incompatible',
      supportedVersions: ['2099-01-01'],
    });
    const refused = await probe(() => new UpstreamFailure('http', 'HTTP 400: Bad Request', 400));
    expect(refused.verdict.era).toBe('2025');
    const unknown = await probe(() => ({ error: { code: -32601, message: 'Method not found' } }));
    expect(unknown.verdict.era).toBe('2025');
  });

  it('takes a result without supportedVersions for 2025, and refuses one whose list is no list', async () => {
    const lenient = await probe(() => ({ result: {} }));
    expect(lenient.verdict.era).toBe('2025');
    await expect(
      probe(() => ({ result: { ...DISCOVERED, supportedVersions: '2026-07-28' } })),
    ).rejects.toMatchObject({
      kind: 'protocol',
      message:
        'the upstream answered server/discover with supportedVersions that is no list of versions',
    });
  });

  it('decides nothing on an auth refusal or an outage', async () => {
    await expect(
      probe(() => new UpstreamFailure('http', 'HTTP 401: who are you', 401)),
    ).rejects.toMatchObject({ status: 401 });
    await expect(probe(() => new UpstreamFailure('http', 'HTTP 503', 503))).rejects.toMatchObject({
      status: 503,
    });
    await expect(
      probe(() => new UpstreamFailure('unreachable', 'ECONNREFUSED')),
    ).rejects.toMatchObject({ kind: 'unreachable' });
  });

  it('takes any failure of a stdio probe for 2025: the process ended, or said nothing', async () => {
    const ended = await probe(() => new UpstreamFailure('unreachable', 'the process ended'), true);
    expect(ended.verdict.era).toBe('2025');
    expect(ended.connection).toBeNull();
  });
});
