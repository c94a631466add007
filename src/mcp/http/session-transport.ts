import {
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { type EventStream, type Exchange } from './exchange';
import { isRequest, isResponse } from './jsonrpc';

/** How a session transport reaches the other replicas. */
export interface SessionRelay {
  /** For the client, on the GET stream of whichever replica holds it. */
  toClient(message: JSONRPCMessage): void;
  /** From the client, for the replica that is waiting for it. */
  fromClient(message: JSONRPCMessage): void;
}

const OUTGOING_TTL_MS = 15 * 60 * 1000;

/**
 * The SDK transport of one session on one replica. Incoming messages arrive with the HTTP request
 * that carried them; outgoing ones go to that request's exchange when they are about it, else to
 * the session's GET stream, here or on another replica.
 *
 * Requests this replica sends to the client get ids `<replica>.<n>`, so that whichever replica the
 * client's answer reaches can tell whose it is; the SDK's own ids stay per replica.
 */
export class SessionTransport implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  /** Client requests in progress here; `abort` is set for those served outside the SDK server. */
  private readonly exchanges = new Map<
    RequestId,
    { exchange: Exchange; abort?: AbortController }
  >();
  private readonly outgoing = new Map<string, { id: RequestId; at: number }>();
  private stream: EventStream | null = null;
  private sequence = 0;
  private closed = false;

  constructor(
    readonly sessionId: string,
    private readonly replicaId: string,
    private readonly relay: SessionRelay,
  ) {}

  async start(): Promise<void> {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stream?.end();
    // Requests in progress get an answer, so that no client waits on a session that is gone; the
    // SDK server aborts its own handlers in onclose.
    const open = [...this.exchanges];
    this.exchanges.clear();
    for (const [id, { exchange, abort }] of open) {
      abort?.abort('session closed');
      exchange.finish({
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.ConnectionClosed, message: 'Session closed' },
      });
    }
    this.onclose?.();
  }

  get inFlight(): number {
    return this.exchanges.size;
  }

  get hasStream(): boolean {
    return this.stream?.open ?? false;
  }

  /** A client request, answered on `exchange`. */
  receiveRequest(message: JSONRPCRequest, exchange: Exchange, extra?: MessageExtraInfo): void {
    this.exchanges.set(message.id, { exchange });
    this.onmessage?.(message, extra);
  }

  /** A client request served outside the SDK server; a cancellation aborts `abort`. */
  serve(id: RequestId, exchange: Exchange, abort: AbortController): void {
    this.exchanges.set(id, { exchange, abort });
  }

  /** The answer to a request served outside the SDK server. */
  answer(message: JSONRPCResponse): void {
    void this.send(message);
  }

  receiveNotification(message: JSONRPCNotification, extra?: MessageExtraInfo): void {
    if (message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const entry = requestId === undefined ? undefined : this.exchanges.get(requestId);
      if (requestId !== undefined && !entry) {
        this.relay.fromClient(message);
        return;
      }
      if (requestId !== undefined && entry) {
        // A cancelled request gets no answer; whatever its handler returns later finds no exchange.
        this.exchanges.delete(requestId);
        entry.exchange.cancel();
        if (entry.abort) {
          entry.abort.abort();
          return;
        }
      }
    }
    this.onmessage?.(message, extra);
  }

  /** The client's answer to a request some replica sent it. */
  receiveResponse(message: JSONRPCResponse): void {
    if (!this.deliverResponse(message)) this.relay.fromClient(message);
  }

  /** A client message another replica could not place; take it if it is ours. */
  receiveRelayed(message: JSONRPCMessage): void {
    if (isResponse(message)) {
      this.deliverResponse(message);
    } else if (!isRequest(message) && 'params' in message) {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined && this.exchanges.has(requestId))
        this.receiveNotification(message);
    }
  }

  /** Returns false when a stream is open here already. */
  attachStream(stream: EventStream): boolean {
    if (this.stream?.open) return false;
    this.stream = stream;
    return true;
  }

  detachStream(stream: EventStream): void {
    if (this.stream === stream) this.stream = null;
  }

  /** For the client's GET stream, if this replica holds it. */
  writeToStream(message: JSONRPCMessage): void {
    if (this.stream?.open) this.stream.write(message);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isResponse(message)) {
      if (message.id === undefined) return;
      const entry = this.exchanges.get(message.id);
      this.exchanges.delete(message.id);
      entry?.exchange.finish(message);
      return;
    }
    let outbound = message;
    if (isRequest(message)) {
      const wireId = `${this.replicaId}.${++this.sequence}`;
      this.rememberOutgoing(wireId, message.id);
      outbound = { ...message, id: wireId };
    }
    const related =
      options?.relatedRequestId === undefined
        ? undefined
        : this.exchanges.get(options.relatedRequestId);
    if (related) related.exchange.write(outbound);
    else if (this.stream?.open) this.stream.write(outbound);
    else this.relay.toClient(outbound);
  }

  private deliverResponse(message: JSONRPCResponse): boolean {
    const wireId = String(message.id);
    const local = this.outgoing.get(wireId);
    if (!local) return false;
    this.outgoing.delete(wireId);
    this.onmessage?.({ ...message, id: local.id });
    return true;
  }

  private rememberOutgoing(wireId: string, id: RequestId): void {
    const now = Date.now();
    for (const [key, entry] of this.outgoing) {
      if (now - entry.at < OUTGOING_TTL_MS) break;
      this.outgoing.delete(key);
    }
    this.outgoing.set(wireId, { id, at: now });
  }
}
