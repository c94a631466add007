import {
  type Implementation,
  type InitializeResult,
  type JSONRPCRequest,
  type JSONRPCResponse,
  LATEST_PROTOCOL_VERSION,
  ProtocolErrorCode,
  type Result,
  type ServerCapabilities,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/client';
import { type Channel } from '../transport/channel';
import { type InFlight, resultOf, RpcConnection } from '../rpc-connection';
import { UpstreamFailure, UpstreamRpcError } from '../upstream-error';
import {
  type CallParking,
  type ConnectOptions,
  PORTICO_CLIENT,
  type RequestOptions,
  type UpstreamAsk,
  type UpstreamConnection,
} from '../upstream-connection';

export interface SessionConnectOptions extends ConnectOptions {
  /** Where a call waits while its client is asked, for callers that take input rounds. */
  parking?: CallParking;
}

/**
 * The MCP client of 2025 upstreams. It speaks JSON-RPC over a channel: the handshake, requests with
 * their own timer and abort signal, cancellation, and the upstream's own requests and
 * notifications, which go to the request they are about when the wire says so (its own stream, or
 * its progress token), and otherwise to the connection's listener.
 */
export class SessionConnection extends RpcConnection implements UpstreamConnection {
  declare protected readonly options: SessionConnectOptions;
  private initialized: InitializeResult | null = null;

  /** Opens the channel and runs the handshake; throws an UpstreamFailure. */
  static async open(channel: Channel, options: SessionConnectOptions): Promise<SessionConnection> {
    const connection = new SessionConnection(channel, options);
    await connection.startChannel(
      {
        message: (message) =>
          'id' in message ? connection.answer(message, undefined) : connection.untied(message),
        lost: (reason) => connection.lose(reason),
      },
      () => connection.handshake(),
    );
    return connection;
  }

  get serverCapabilities(): ServerCapabilities {
    return this.initialized?.capabilities ?? {};
  }

  get serverInfo(): Implementation | undefined {
    return this.initialized?.serverInfo;
  }

  get protocolVersion(): string | undefined {
    return this.initialized?.protocolVersion;
  }

  /**
   * A request; for a caller that takes input rounds (`allowInputRequired`) but cannot be asked
   * mid-call (its sink has no `ask`), what the upstream asks of it becomes a round, the call
   * parked meanwhile (`parking`), as a 2026-07-28 upstream would answer with one.
   */
  request<T extends Result = Result>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions = {},
  ): Promise<T> {
    const { sink, signal } = options;
    const { parking, capabilities } = this.options;
    if (!options.allowInputRequired || !sink || sink.ask || !parking)
      return this.sent(method, params, options);
    return parking.run(
      (parkable, callSignal) =>
        this.sent(method, params, { ...options, sink: parkable, signal: callSignal }),
      sink,
      signal,
      capabilities,
    ) as Promise<T>;
  }

  private sent<T extends Result>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<T> {
    return this.exchange(method, params, options, {
      cancels: method !== 'initialize',
      answer: (request, entry) => this.answer(request, entry),
      settle: (response) => resultOf(response) as T,
    });
  }

  private async handshake(): Promise<void> {
    const result = await this.request<InitializeResult>('initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: this.options.capabilities,
      clientInfo: PORTICO_CLIENT,
    });
    if (
      typeof result?.protocolVersion !== 'string' ||
      !SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)
    ) {
      throw new UpstreamFailure(
        'protocol',
        `the upstream's protocol version is not supported: ${String(result?.protocolVersion)}`,
      );
    }
    this.initialized = result;
    this.channel.established(result.protocolVersion);
    await this.notify('notifications/initialized');
    if (this.options.listen !== false) await this.channel.listen();
  }

  /**
   * Answers a request of the upstream's, on behalf of the downstream client: the caller of the
   * request it came with, or outside any request the connection's listener.
   */
  private answer(request: JSONRPCRequest, entry: InFlight | undefined): void {
    const ask: UpstreamAsk = { method: request.method, params: request.params };
    let answer: Promise<Result>;
    if (request.method === 'ping') answer = Promise.resolve({});
    else if (entry?.sink?.ask) answer = entry.sink.ask(ask);
    else if (!entry && this.options.listener?.request) answer = this.options.listener.request(ask);
    else
      answer = Promise.reject(
        new UpstreamRpcError(
          ProtocolErrorCode.MethodNotFound,
          `Method not found: ${request.method}`,
        ),
      );
    entry?.timer.pauseFor(answer);
    void answer
      .then(
        (result): JSONRPCResponse => ({ jsonrpc: '2.0', id: request.id, result }),
        (error: unknown): JSONRPCResponse => ({
          jsonrpc: '2.0',
          id: request.id,
          error: rpcErrorOf(error),
        }),
      )
      .then((response) => this.channel.send(response))
      .catch(() => undefined);
  }
}

/** The JSON-RPC error a downstream failure becomes when answering an upstream's request. */
function rpcErrorOf(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof UpstreamRpcError)
    return {
      code: error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    };
  const coded = error as { code?: unknown; message?: unknown };
  if (typeof coded?.code === 'number' && typeof coded.message === 'string')
    return { code: coded.code, message: coded.message };
  return { code: ProtocolErrorCode.InternalError, message: 'The client could not answer' };
}
