import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/client';
import { openSse, type SseReader } from './sse';
import { type TestApp } from './test-app';

export const MODERN = '2026-07-28';

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface ModernClientOptions {
  token?: string;
  /** Sends every HTTP request through this (a test that steers requests between replicas). */
  fetchVia?: Fetch;
  capabilities?: Record<string, unknown>;
  /** The answer to each elicitation; by default it accepts with `{ name: 'Alice' }`. */
  elicit?: (request: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>;
  /** `/mcp` (the default) or `/servers/<id>/mcp`. */
  path?: string;
}

/**
 * The SDK v2 client pinned to 2026-07-28 on `/mcp`, answering every kind of input round it declares
 * itself: elicitation (as `elicit` says), sampling ("Paris") and roots (`file:///work`).
 */
export async function modernClient(
  app: TestApp,
  options: ModernClientOptions = {},
): Promise<Client> {
  const declared = options.capabilities ?? { elicitation: { form: {} }, sampling: {}, roots: {} };
  const client = new Client(
    { name: 'modern-test', version: '1.0.0' },
    {
      capabilities: declared,
      versionNegotiation: { mode: { pin: MODERN } },
    },
  );
  const elicit =
    options.elicit ?? (() => ({ action: 'accept' as const, content: { name: 'Alice' } }));
  if (declared.elicitation)
    client.setRequestHandler('elicitation/create', async (request) => elicit(request.params));
  if (declared.sampling)
    client.setRequestHandler('sampling/createMessage', () =>
      Promise.resolve({
        role: 'assistant' as const,
        content: { type: 'text' as const, text: 'Paris' },
        model: 'test-model',
      }),
    );
  if (declared.roots)
    client.setRequestHandler('roots/list', () =>
      Promise.resolve({ roots: [{ uri: 'file:///work', name: 'work' }] }),
    );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(options.path ?? '/mcp', app.baseUrl), {
      requestInit: { headers: { Authorization: `Bearer ${options.token ?? app.token}` } },
      ...(options.fetchVia ? { fetch: options.fetchVia } : {}),
    }),
  );
  return client;
}

export interface RawAnswer {
  status: number;
  body: {
    id: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: unknown };
  };
}

/** One 2026-07-28 tools/call on the wire of an MCP endpoint, as a client that answers rounds by hand sends it. */
export async function rawCall(
  app: TestApp,
  id: string,
  params: { name: string; arguments?: Record<string, unknown> } & Record<string, unknown>,
  options: {
    token?: string;
    capabilities?: Record<string, unknown>;
    signal?: AbortSignal;
    /** `/mcp` (the default) or `/servers/<id>/mcp`. */
    path?: string;
  } = {},
): Promise<RawAnswer> {
  const response = await fetch(new URL(options.path ?? '/mcp', app.baseUrl), {
    method: 'POST',
    ...(options.signal ? { signal: options.signal } : {}),
    headers: {
      authorization: `Bearer ${options.token ?? app.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': params.name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {
            elicitation: { form: {} },
          },
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
        },
      },
    }),
  });
  return { status: response.status, body: (await response.json()) as RawAnswer['body'] };
}

/**
 * A 2026-07-28 call of `tool` answered with an input round (Portico's approval question, say), and
 * a retry that accepts each of the round's questions, to send on any replica as often as a test
 * likes.
 */
export async function acceptingRetry(
  asking: TestApp,
  tool: string,
  args: Record<string, unknown>,
): Promise<(on: TestApp, id: string) => Promise<RawAnswer>> {
  const asked = await rawCall(asking, 'ask', { name: tool, arguments: args });
  const round = asked.body.result as
    | { resultType?: string; inputRequests: Record<string, unknown>; requestState: string }
    | undefined;
  if (round?.resultType !== 'input_required')
    throw new Error(`${tool} was not answered with an input round: ${JSON.stringify(asked.body)}`);
  const inputResponses = Object.fromEntries(
    Object.keys(round.inputRequests).map((key) => [key, { action: 'accept', content: {} }]),
  );
  const { requestState } = round;
  return (on, id) => rawCall(on, id, { name: tool, arguments: args, inputResponses, requestState });
}

/** A 2026-07-28 `subscriptions/listen` on the wire (id `listen-1`), its answer read as events. */
export async function rawListen(
  baseUrl: string,
  token: string,
  notifications: Record<string, unknown>,
  capabilities: Record<string, unknown> = {},
  /** `/mcp` (the default) or `/servers/<id>/mcp`. */
  path = '/mcp',
): Promise<{ response: Response; reader: SseReader }> {
  return openSse(`${baseUrl}${path}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': MODERN,
      'Mcp-Method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'listen-1',
      method: 'subscriptions/listen',
      params: {
        notifications,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
        },
      },
    }),
  });
}
