import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, McpError } from '@modelcontextprotocol/sdk/types.js';

export interface ConnectOptions {
  token: string;
  /** `/mcp` or `/servers/<id>/mcp`. */
  path?: string;
  capabilities?: ClientOptions['capabilities'];
  sessionId?: string;
  name?: string;
  /** Sends every HTTP request through this (a test that steers requests between replicas). */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
}

/** The real SDK client over Streamable HTTP against a Portico instance. */
export async function connectClient(baseUrl: string, options: ConnectOptions): Promise<Client> {
  const client = new Client(
    { name: options.name ?? 'test-client', version: '1.0.0' },
    { capabilities: options.capabilities ?? {} },
  );
  const transport = new StreamableHTTPClientTransport(new URL(options.path ?? '/mcp', baseUrl), {
    requestInit: { headers: { Authorization: `Bearer ${options.token}` } },
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  await client.connect(transport);
  return client;
}

/** A raw initialize request, for tests that speak the transport by hand. */
export const initializeRequest = (
  id: number | string = 1,
  protocolVersion: string = LATEST_PROTOCOL_VERSION,
) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** POSTs a JSON-RPC message (or raw text) to an MCP endpoint by hand, with the headers it needs. */
export function postMcp(
  url: string,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Polls until `check` passes or the deadline passes (then throws its last error). */
export async function eventually<T>(
  check: () => Promise<T> | T,
  timeoutMs = 10_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }
}

/** The JSON-RPC error a call ended with; fails when it succeeded or threw anything else. */
export async function rpcError(call: Promise<unknown>): Promise<McpError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}
