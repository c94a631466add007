import {
  type CancelledNotificationParams,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCResponse,
  type LoggingLevel,
  type RequestId,
  type Result,
} from '@modelcontextprotocol/server';
import { type UpstreamList } from '../../events/event-bus';
import { passesLogLevel } from '../protocol/logging-level';
import { CONNECTION_CLOSED, jsonRpcError } from '../protocol/mcp-errors';
import { scopeOf, type McpScope } from '../protocol/mcp-scope';
import { ClientRequests } from './client-requests';
import {
  type ClientStream,
  type Exchange,
  primingId,
  type StreamOwner,
  type StreamSink,
} from '../streams/client-stream';
import { type SessionState } from './session.store';
import { type Affinity } from '../../upstream/upstream-connection';
import { type UpstreamClient } from '../../upstream/upstream-client';
import { type Resumption, SESSION_STREAM, type StreamEvents } from './stream-events.store';
import { OutgoingStream } from './outgoing-stream';
import { DeliveryQueue, onceKey } from '../streams/delivery-queue';
import { CallAbort } from '../../common/call-abort';
import { type SessionRelay } from './bus-relay';

export interface RuntimeParts {
  replicaId: string;
  relay: SessionRelay;
  events: StreamEvents;
  client: UpstreamClient;
  /** The session's own upstream connections. */
  affinity: (runtime: SessionRuntime) => Affinity;
}

/** A request in progress here, and the credentials that sent it. */
type Served = { exchange: Exchange; abort: CallAbort; owner: StreamOwner };

/**
 * One MCP session as served by this replica: the client's requests in progress here, the streams
 * it holds here, what Portico asks of the client, and its own upstream sessions. Any replica builds
 * one from the stored session record, so any replica can serve any request.
 */
export class SessionRuntime implements StreamSink {
  readonly scope: McpScope;
  /** The session's own upstream connections, never shared with another session. */
  readonly affinity: Affinity;
  lastUsed = Date.now();
  /** Per list: the version this session last saw. */
  readonly seen = new Map<UpstreamList, string>();
  /** The resources this replica follows upstream for the session, by the client's URI. */
  private readonly following = new Map<string, () => void>();
  private readonly served = new Map<RequestId, Served>();
  private readonly asked: ClientRequests;
  private stream: OutgoingStream | null = null;
  private readonly resumed = new Map<string, OutgoingStream>();
  private readonly sessionStream = new DeliveryQueue();
  private closed = false;

  constructor(
    readonly session: SessionState,
    private readonly parts: RuntimeParts,
  ) {
    this.scope = scopeOf(session.serverId);
    this.asked = new ClientRequests(parts.replicaId);
    this.affinity = parts.affinity(this);
  }

  get id(): string {
    return this.session.id;
  }

  get logLevel(): LoggingLevel | null {
    return this.session.logLevel;
  }

  /** The older HTTP+SSE transport: every message goes out on the session's stream, without ids. */
  get legacy(): boolean {
    return this.session.transport === 'sse';
  }

  get inFlight(): number {
    return this.served.size;
  }

  get hasStream(): boolean {
    return this.stream?.open ?? false;
  }

  /** Serves a request `owner` sent: a cancel aborts `work`'s signal; the answer goes nowhere. */
  async serve(
    id: RequestId,
    exchange: Exchange,
    work: (signal: AbortSignal) => Promise<JSONRPCResponse>,
    owner: StreamOwner,
  ): Promise<void> {
    const abort = new CallAbort();
    this.served.set(id, { exchange, abort, owner });
    const answer = await work(abort.signal);
    if (this.served.get(id)?.exchange !== exchange) return;
    this.served.delete(id);
    exchange.finish(answer);
  }

  /** A request cancelled: no answer (the client's cancel) or `answer`; false if not served here. */
  cancel(requestId: RequestId, reason: string, answer?: JSONRPCResponse): boolean {
    const served = this.served.get(requestId);
    if (!served) return false;
    this.served.delete(requestId);
    if (answer) served.exchange.finish(answer);
    else served.exchange.cancel();
    served.abort.abort(reason);
    return true;
  }

  /**
   * A message for the client: on the stream of the request it is about while that is answered
   * here, else on the session's own stream, wherever that is open. Log messages below the
   * session's level are dropped.
   */
  toClient(message: JSONRPCMessage, related?: RequestId): void {
    if ('method' in message && !passesLogLevel(message, this.logLevel)) return;
    const served = related === undefined ? undefined : this.served.get(related);
    if (served) served.exchange.write(message);
    else this.toSessionStream(message);
  }

  /** Asks the client (sampling, elicitation, roots) on behalf of an upstream; resolves its answer. */
  ask(
    request: { method: string; params?: Record<string, unknown> },
    related?: RequestId,
    signal?: AbortSignal,
  ): Promise<Result> {
    const { id, answer } = this.asked.open(signal);
    this.toClient({ jsonrpc: '2.0', id, method: request.method, params: request.params }, related);
    return answer;
  }

  /** The client's answer to a request some replica sent it. */
  clientAnswered(response: JSONRPCResponse): void {
    if (response.id === undefined) return;
    if (!this.asked.answer(response) && !this.asked.isOurs(response.id))
      this.parts.relay.fromClient(response);
  }

  /** The client's level, asked of every upstream; one that does not take it fails nothing. */
  async setUpstreamLogLevel(level: LoggingLevel | null): Promise<void> {
    if (!level) return;
    await this.parts.client.each(this.affinity, async (connection) => {
      if (connection.serverCapabilities.logging)
        await connection.request('logging/setLevel', { level });
    });
  }

  /** A client notification every upstream of the session hears (its roots changed). */
  async notifyUpstreams(notification: JSONRPCNotification): Promise<void> {
    await this.parts.client.each(this.affinity, (connection) =>
      connection.notify(notification.method, notification.params),
    );
  }

  /** Whether this replica follows the resource for the session. */
  follows(uri: string): boolean {
    return this.following.has(uri);
  }

  /** The resource is followed here now (`stop` ends it), or no longer (null: stopped or lost). */
  followed(uri: string, stop: (() => void) | null): void {
    this.following.get(uri)?.();
    if (stop) this.following.set(uri, stop);
    else this.following.delete(uri);
  }

  /** Subscriptions another replica ended: this replica stops following them too. */
  reconcileSubscriptions(): void {
    for (const uri of [...this.following.keys()])
      if (!this.session.subscriptions.includes(uri)) this.followed(uri, null);
  }

  /** A client message this replica cannot place, for the replica that can. */
  relayFromClient(message: JSONRPCMessage): void {
    this.parts.relay.fromClient(message);
  }

  /** A client message another replica could not place: taken if it is for this one. */
  receiveRelayed(message: JSONRPCMessage): void {
    if ('result' in message || 'error' in message) {
      this.asked.answer(message);
      return;
    }
    if ('method' in message && message.method === 'notifications/cancelled') {
      const { requestId, reason } = (message.params ?? {}) as Partial<CancelledNotificationParams>;
      if (requestId !== undefined) this.cancel(requestId, reason ?? 'cancelled');
    }
  }

  /** The session's own stream opened here: GET, or the older transport's SSE stream. */
  openSessionStream(sse: ClientStream, owner: StreamOwner): boolean {
    if (this.stream?.open) return false;
    const stream = new OutgoingStream(sse, owner);
    this.stream = stream;
    sse.onClose(() => {
      if (this.stream === stream) this.stream = null;
    });
    if (!this.legacy) sse.prime(primingId(SESSION_STREAM));
    return true;
  }

  /**
   * A client resumes a stream with `Last-Event-ID`: what it missed is replayed, then the stream
   * goes on here. A client that resumes its session's stream has lost the old one, though this
   * replica may not have noticed yet: the old one is ended.
   */
  async resume(sse: ClientStream, position: Resumption, owner: StreamOwner): Promise<void> {
    let stream: OutgoingStream;
    if (position.streamId === SESSION_STREAM) {
      this.stream?.end();
      this.openSessionStream(sse, owner);
      stream = this.stream!;
    } else {
      stream = new OutgoingStream(sse, owner);
      this.resumed.set(position.streamId, stream);
      sse.onClose(() => this.resumed.delete(position.streamId));
    }
    await stream.replay(this.parts.events.after(this.id, position));
  }

  /** A message for one of the session's streams that another replica relayed. */
  deliver(streamId: string, message: JSONRPCMessage, eventId?: string, final?: boolean): void {
    const stream = streamId === SESSION_STREAM ? this.stream : this.resumed.get(streamId);
    stream?.write(message, eventId, final);
  }

  store(streamId: string, message: JSONRPCMessage, text?: string): Promise<string> {
    return this.parts.events.append(this.id, streamId, message, text);
  }

  forward(streamId: string, eventId: string, message: JSONRPCMessage, final: boolean): void {
    this.parts.relay.toClient(streamId, message, eventId, final);
  }

  /** Ends the streams here `owned` picks (or all); the client resumes them, checked again. */
  endStreams(owned: (owner: StreamOwner) => boolean = () => true): void {
    for (const stream of [this.stream, ...this.resumed.values()])
      if (stream && owned(stream.owner)) stream.end();
  }

  /** Ends the requests in progress that credentials `owned` picks sent: aborted and answered. */
  endRequests(owned: (owner: StreamOwner) => boolean): void {
    const revoked = 'The credentials of this request changed or were revoked';
    for (const [id, { owner }] of [...this.served])
      if (owned(owner)) this.cancel(id, revoked, jsonRpcError(id, CONNECTION_CLOSED, revoked));
  }

  /**
   * Answers the requests in progress, so that no client waits on a session that is gone, and ends
   * the streams and upstream sessions.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const served = [...this.served];
    this.served.clear();
    for (const [id, { exchange, abort }] of served) {
      abort.abort('session closed');
      exchange.finish(jsonRpcError(id, CONNECTION_CLOSED, 'Session closed'));
    }
    this.asked.close();
    for (const uri of [...this.following.keys()]) this.followed(uri, null);
    this.endStreams();
    await this.parts.client.release(this.affinity);
  }

  /**
   * In order, each stored first (for an event id; the older transport keeps none), then written
   * here or relayed; past DeliveryQueue's bound all but answers are dropped, and a resource's
   * update or a list's change waits once however often it comes.
   */
  private toSessionStream(message: JSONRPCMessage): void {
    const text = JSON.stringify(message);
    this.sessionStream.add(
      text.length,
      async () => {
        const eventId = this.legacy
          ? undefined
          : await this.store(SESSION_STREAM, message, text).catch(() => undefined);
        if (this.stream?.open) this.stream.write(message, eventId, false, text);
        else this.parts.relay.toClient(SESSION_STREAM, message, eventId);
      },
      !('method' in message),
      onceKey(message, text),
    );
  }
}
