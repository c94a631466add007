import { type Transport } from '@modelcontextprotocol/client';
import {
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from '@modelcontextprotocol/client';
import { type Channel, type ChannelListener, type ChannelRequestOptions } from './channel';
import { boundMessage } from './message-bounds';
import { PendingRequests } from './pending-requests';
import { UpstreamFailure } from '../upstream-error';

/**
 * An upstream session over one of the SDK's client transports whose messages all share one pipe
 * (the older HTTP+SSE transport). Answers are matched to requests by id; everything else
 * reaches the listener, which tells calls apart as well as the messages allow.
 */
export class TransportChannel implements Channel {
  private readonly pending = new PendingRequests();
  private listener: ChannelListener | null = null;
  private closed = false;

  constructor(
    /** JSON_MAX_DEPTH: the SDK's transport parses each message, Portico bounds it after. */
    private readonly maxDepth: number,
    private readonly transport: Transport,
  ) {}

  async start(listener: ChannelListener): Promise<void> {
    this.listener = listener;
    this.transport.onmessage = (received) => {
      const message = boundMessage(received, this.maxDepth);
      if (message instanceof UpstreamFailure) {
        // Which request it answered cannot be trusted; the session cannot go on without it.
        this.lose(message);
        return;
      }
      this.pending.route(message, (untied) => listener.message(untied));
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

  /** The pipe carries everything already. */
  listen(): Promise<void> {
    return Promise.resolve();
  }

  request(message: JSONRPCRequest, options: ChannelRequestOptions): Promise<JSONRPCResponse> {
    if (this.closed)
      return Promise.reject(
        new UpstreamFailure('unreachable', 'the upstream connection is closed'),
      );
    return this.pending.add(message.id, options, () => this.transport.send(message));
  }

  async send(message: JSONRPCNotification | JSONRPCResponse): Promise<void> {
    await this.transport.send(message);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.transport.close().catch(() => undefined);
  }

  /** Ends the session: every request waiting fails with `reason`, and the listener hears it. */
  lose(reason: UpstreamFailure): void {
    if (this.closed && this.pending.size === 0) return;
    this.closed = true;
    this.pending.failAll(reason);
    this.listener?.lost(reason);
  }
}
