import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type Channel,
  type ChannelListener,
  type ChannelRequestOptions,
  isJsonRpcResponse,
} from './channel';
import { UpstreamFailure } from './upstream-error';

interface Pending {
  resolve(response: JSONRPCResponse): void;
  reject(reason: unknown): void;
}

/**
 * An upstream session over one of the SDK's client transports whose messages all share one pipe:
 * the older HTTP+SSE transport, or stdio. Answers are matched to requests by id; everything else
 * reaches the listener, which tells calls apart as well as the messages allow.
 */
export class TransportChannel implements Channel {
  private readonly pending = new Map<RequestId, Pending>();
  private listener: ChannelListener | null = null;
  private closed = false;

  constructor(private readonly transport: Transport) {}

  async start(listener: ChannelListener): Promise<void> {
    this.listener = listener;
    this.transport.onmessage = (message) => {
      if (!isJsonRpcResponse(message)) {
        listener.message(message);
        return;
      }
      if (message.id === undefined) return;
      const pending = this.pending.get(message.id);
      this.pending.delete(message.id);
      pending?.resolve(message);
    };
    this.transport.onclose = () =>
      this.lose(new UpstreamFailure('unreachable', 'the upstream closed the connection'));
    this.transport.onerror = (error) => {
      // The SDK reports a broken event stream as an error and leaves the transport half-open.
      if (error.message.startsWith('SSE stream disconnected'))
        this.lose(new UpstreamFailure('unreachable', error.message));
    };
    await this.transport.start();
  }

  established(protocolVersion: string): void {
    this.transport.setProtocolVersion?.(protocolVersion);
  }

  request(message: JSONRPCRequest, options: ChannelRequestOptions): Promise<JSONRPCResponse> {
    if (this.closed)
      return Promise.reject(
        new UpstreamFailure('unreachable', 'the upstream connection is closed'),
      );
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(message.id);
        reject(options.signal.reason as Error);
      };
      if (options.signal.aborted) {
        onAbort();
        return;
      }
      options.signal.addEventListener('abort', onAbort, { once: true });
      const settle =
        <T>(done: (value: T) => void) =>
        (value: T) => {
          options.signal.removeEventListener('abort', onAbort);
          done(value);
        };
      this.pending.set(message.id, {
        resolve: settle(resolve),
        reject: settle(reject),
      });
      this.transport.send(message).catch((error: unknown) => {
        this.pending.delete(message.id);
        settle(reject)(error);
      });
    });
  }

  async send(message: JSONRPCNotification | JSONRPCResponse): Promise<void> {
    await this.transport.send(message);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.transport.close().catch(() => undefined);
  }

  private lose(reason: UpstreamFailure): void {
    if (this.closed && this.pending.size === 0) return;
    this.closed = true;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const entry of pending) entry.reject(reason);
    this.listener?.lost(reason);
  }
}
