import { randomBytes } from 'node:crypto';
import { type ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { isJsonObject, isRequestId } from '../../common/json-value';
import {
  ProtocolErrorCode,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  LATEST_PROTOCOL_VERSION,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { InitializeRequestSchema } from '@modelcontextprotocol/core';
import { type Principal } from '../../auth/principal';
import { Directories } from '../directory/directories.service';
import { SessionRequests } from './session-requests';
import { type Authorized } from '../protocol/authorized';
import { idOf, McpRefusal, streamBehind } from '../protocol/mcp-errors';
import { type SessionRuntime } from './session-runtime';
import { SessionRegistry } from './session-registry.service';
import { type Exchange, primingId, type StreamSink } from '../streams/client-stream';
import { DeliveryQueue } from '../streams/delivery-queue';
import { SseResponse, STREAM_BACKLOG_BYTES } from '../streams/sse-response';
import { newSession, requestedSession, SessionStore } from './session.store';
import { StreamQuota } from '../streams/stream-quota';

/** What a client's POST holds on the 2025 wire. */
export type Incoming =
  | { kind: 'request'; message: JSONRPCRequest }
  | { kind: 'notification'; message: JSONRPCNotification }
  | { kind: 'response'; message: JSONRPCResponse };

/**
 * What a body holds as a 2025-era message, or a 400 for what is none (batches included: they are
 * not part of the 2025-06-18+ protocol). Structural checks only, as the SDK's zod guards would be
 * wasted work here: each method's handler checks its parameters.
 */
export function incomingOf(body: unknown): Incoming {
  const refuse = (reason: string) =>
    new McpRefusal(400, reason, ProtocolErrorCode.InvalidRequest, idOf(body));
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw refuse(Array.isArray(body) ? 'Batches are not supported' : 'Not a JSON-RPC message');
  const message = body as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') throw refuse('jsonrpc must be "2.0"');
  if (message.params !== undefined) {
    // JSON-RPC allows positional params; MCP does not, in either era.
    if (!isJsonObject(message.params)) throw refuse('params must be an object');
    const meta = message.params._meta;
    if (meta !== undefined && !isJsonObject(meta)) throw refuse('params._meta must be an object');
    if (isJsonObject(meta) && meta.progressToken !== undefined && !isRequestId(meta.progressToken))
      throw refuse('params._meta.progressToken must be a string or an integer');
  }
  const identified = isRequestId(message.id);
  if (typeof message.method === 'string') {
    if (message.id === undefined)
      return { kind: 'notification', message: message as JSONRPCNotification };
    if (!identified) throw refuse('id must be a string or an integer');
    return { kind: 'request', message: message as JSONRPCRequest };
  }
  if (identified && ('result' in message || 'error' in message))
    return { kind: 'response', message: message as JSONRPCResponse };
  throw refuse('Not a JSON-RPC request, notification or response');
}

/** The protocol version an initialize settles on: the client's when supported, else the latest. */
export function negotiatedVersion(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

/**
 * What a client POSTs on the 2025 wire of Streamable HTTP (the edge sends it what is not of
 * 2026-07-28): an initialize opens a session; any other message names its session, whose runtime
 * on this replica serves it, a request answered on its own exchange. The session's GET stream and
 * its DELETE are SessionStreamEndpoint's.
 */
@Injectable()
export class StreamableHttpEndpoint {
  constructor(
    private readonly store: SessionStore,
    private readonly registry: SessionRegistry,
    private readonly directories: Directories,
    private readonly requests: SessionRequests,
    private readonly quota: StreamQuota,
  ) {}

  /** A POST of the 2025 wire, its JSON body read and bounded by the edge (McpHttpHandler). */
  async post(http: Authorized, body: unknown): Promise<void> {
    const incoming = incomingOf(body);
    if (incoming.kind === 'request' && incoming.message.method === 'initialize') {
      await this.initialize(http, incoming.message);
      return;
    }
    const session = await requestedSession(this.store, this.directories, http);
    const runtime = this.registry.obtain(session);
    this.store.touch(session);
    if (incoming.kind === 'request') {
      const { message } = incoming;
      this.serve(runtime, message, this.exchange(http, runtime, message.id), http.principal);
      return;
    }
    this.receive(runtime, incoming.message);
    http.response.writeHead(202).end();
  }

  /** A client request, answered on its exchange by the router, for the principal that sent it. */
  serve(
    runtime: SessionRuntime,
    message: JSONRPCRequest,
    exchange: Exchange,
    principal: Principal,
  ): void {
    void runtime.serve(
      message.id,
      exchange,
      (signal) => this.requests.answer(runtime, message, signal, principal),
      principal,
    );
  }

  /**
   * Where the answer to a POSTed request goes; if it becomes a stream, the principal holds it. A
   * stream that falls too far behind cancels the request, whose answer is then -32015.
   */
  private exchange(
    { response, principal }: Authorized,
    runtime: SessionRuntime,
    id: RequestId,
  ): HttpExchange {
    return new HttpExchange(
      response,
      runtime,
      () => this.quota.count(principal, response),
      () => runtime.cancel(id, 'the stream fell behind', streamBehind(id, STREAM_BACKLOG_BYTES)),
    );
  }

  /** A client notification or response. */
  receive(runtime: SessionRuntime, message: JSONRPCMessage): void {
    if ('result' in message || 'error' in message) {
      runtime.clientAnswered(message);
      return;
    }
    if (!('method' in message)) return;
    if (message.method === 'notifications/cancelled') {
      const { requestId, reason } = (message.params ?? {}) as {
        requestId?: string | number;
        reason?: string;
      };
      if (
        requestId !== undefined &&
        !runtime.cancel(requestId, reason ?? 'cancelled by the client')
      )
        runtime.relayFromClient(message);
      return;
    }
    void this.requests.notify(runtime, message).catch(() => undefined);
  }

  private async initialize(http: Authorized, message: JSONRPCRequest): Promise<void> {
    const { request, response, scope, principal } = http;
    if (request.headers['mcp-session-id'] !== undefined)
      throw new McpRefusal(400, 'initialize must not carry an Mcp-Session-Id');
    const parsed = InitializeRequestSchema.safeParse(message);
    if (!parsed.success)
      throw new McpRefusal(
        400,
        `Invalid initialize request: ${parsed.error.message}`,
        ProtocolErrorCode.InvalidParams,
        message.id,
      );
    if (!(await this.directories.get(scope)))
      throw new McpRefusal(404, 'No such virtual server, or it is disabled');
    const session = await this.store.create(
      newSession(principal, scope, {
        transport: 'streamable-http',
        protocolVersion: negotiatedVersion(parsed.data.params.protocolVersion),
        initializeParams: parsed.data.params,
      }),
    );
    const runtime = this.registry.obtain(session);
    response.setHeader('Mcp-Session-Id', session.id);
    this.serve(runtime, message, this.exchange(http, runtime, message.id), principal);
  }
}

/**
 * The answer to one POSTed request. It stays plain JSON unless something must go out before the
 * answer (progress, logging, a sampling request); then the response becomes an event stream whose
 * events are stored and carry ids, so that a client whose connection drops resumes it with GET and
 * `Last-Event-ID`, on any replica.
 */
export class HttpExchange implements Exchange {
  private sse: SseResponse | null = null;
  private streamId: string | null = null;
  private done = false;
  /** The client's connection closed before the answer: messages go to where it resumes. */
  private detached = false;
  /** Made when the answer becomes a stream: a plain JSON answer needs none. */
  private delivery: DeliveryQueue | null = null;

  /**
   * `streaming` hears when the answer becomes an event stream; `behind`, when a message finds
   * the stream too far behind to take it (see DeliveryQueue).
   */
  constructor(
    private readonly response: ServerResponse,
    private readonly sink: StreamSink,
    private readonly streaming: () => void,
    private readonly behind: () => void,
  ) {
    response.on('close', () => {
      if (!this.done || this.sse) this.detached = true;
    });
  }

  write(message: JSONRPCMessage): void {
    if (this.done) return;
    this.deliver(message, false);
  }

  finish(message: JSONRPCMessage): void {
    if (this.done) return;
    this.done = true;
    if (this.sse || this.detached) {
      this.deliver(message, true);
      return;
    }
    const body = JSON.stringify(message);
    this.response.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    });
    this.response.end(body);
  }

  /**
   * A request must be answered with JSON or an event stream; a stream may end before the answer,
   * so a cancelled request's stream (empty if nothing went out yet) just ends.
   */
  cancel(): void {
    if (this.done) return;
    this.done = true;
    if (this.sse) this.delivery?.add(0, async () => this.sse?.end(), true);
    else if (!this.detached) new SseResponse(this.response).end();
  }

  /** In order, each stored first, so that what the client saw it can always resume after. */
  private deliver(message: JSONRPCMessage, final: boolean): void {
    const sse = this.sse ?? this.stream();
    const streamId = this.streamId!;
    const text = JSON.stringify(message);
    const queued = this.delivery!.add(
      text.length,
      async () => {
        const eventId = await this.sink.store(streamId, message, text).catch(() => undefined);
        if (!this.detached && sse.open) {
          sse.message(message, eventId, text);
          if (final) sse.end();
        } else if (eventId !== undefined) {
          this.sink.forward(streamId, eventId, message, final);
        }
      },
      final,
    );
    if (!queued) this.behind();
  }

  private stream(): SseResponse {
    this.streamId = randomBytes(8).toString('hex');
    this.sse = new SseResponse(this.response);
    this.delivery = new DeliveryQueue();
    this.streaming();
    this.sse.prime(primingId(this.streamId));
    return this.sse;
  }
}
