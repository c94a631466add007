import { Injectable, Logger } from '@nestjs/common';
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { InitializeRequestSchema } from '@modelcontextprotocol/core';
import { type Request, type Response } from 'express';
import { type Principal } from '../../auth/principal';
import { ServerSettings } from '../../config/slices/server.settings';
import { Directories } from '../directory/directories.service';
import { UPSTREAM_LISTS } from '../../events/event-bus';
import { CONNECTION_CLOSED, jsonRpcError, McpRefusal } from '../protocol/mcp-errors';
import { type McpScope } from '../protocol/mcp-scope';
import { type SessionRuntime } from './session-runtime';
import { SessionRegistry } from './session-registry.service';
import { newSession, sessionOf, SessionStore } from './session.store';
import { readJsonBody } from '../../common/read-body';
import { SseResponse } from '../streams/sse-response';
import { endAtExpiry } from '../streams/stream-expiry';
import { StreamQuota } from '../streams/stream-quota';
import { type Exchange } from '../streams/client-stream';
import { incomingOf, negotiatedVersion, StreamableHttpEndpoint } from './session.endpoint';

/** The protocol revision of the HTTP+SSE transport. */
const LEGACY_VERSION = '2024-11-05';

/**
 * The older HTTP+SSE transport (protocol 2024-11-05), for clients that have not moved on: a GET
 * opens the session's event stream, whose first event names the URL to POST messages to; every
 * answer goes out on that stream. Same auth and sessions as Streamable HTTP: the stream may be on
 * one replica and the POSTs on another.
 */
@Injectable()
export class LegacySseEndpoint {
  private readonly logger = new Logger(LegacySseEndpoint.name);

  constructor(
    private readonly config: ServerSettings,
    private readonly store: SessionStore,
    private readonly registry: SessionRegistry,
    private readonly directories: Directories,
    private readonly streamable: StreamableHttpEndpoint,
    private readonly quota: StreamQuota,
  ) {}

  /** Opens a session and its stream; the session ends when the stream closes. */
  async open(
    request: Request,
    response: Response,
    scope: McpScope,
    principal: Principal,
    messagesPath: string,
  ): Promise<void> {
    const accept = request.headers.accept ?? '';
    if (!accept.includes('text/event-stream') && !accept.includes('*/*'))
      throw new McpRefusal(406, 'Accept must include text/event-stream');
    // Before the session is made: a refused stream leaves nothing behind.
    this.quota.admit(principal, response);
    const directory = await this.directories.get(scope);
    if (!directory) throw new McpRefusal(404, 'No such virtual server, or it is disabled');
    const session = await this.store.create(
      newSession(principal, scope, {
        transport: 'sse',
        protocolVersion: LEGACY_VERSION,
        initializeParams: null,
      }),
    );
    const runtime = this.registry.obtain(session);
    // From now on the client hears of changes to its lists as they are now, as on a GET stream.
    for (const kind of UPSTREAM_LISTS) runtime.seen.set(kind, directory.version(kind));
    const sse = new SseResponse(response, { keepalive: true });
    runtime.openSessionStream(sse, principal);
    sse.onClose(() => void this.end(session.id));
    // The session ends with its stream; the client opens another with a fresh credential.
    endAtExpiry(principal, sse, () => sse.end());
    sse.event('endpoint', `${messagesPath}?sessionId=${encodeURIComponent(session.id)}`);
  }

  /** A message of the session, POSTed to the URL its stream named; answered on the stream. */
  async message(
    request: Request,
    response: Response,
    scope: McpScope,
    principal: Principal,
  ): Promise<void> {
    const id = request.query.sessionId;
    if (typeof id !== 'string' || id === '') throw new McpRefusal(400, 'sessionId is required');
    const session = await sessionOf(this.store, this.directories, id, scope, principal);
    if (session.transport !== 'sse')
      throw new McpRefusal(404, 'Session not found', CONNECTION_CLOSED);
    const incoming = incomingOf(
      await readJsonBody(request, {
        maxBytes: this.config.bodyLimitBytes,
        maxDepth: this.config.jsonMaxDepth,
      }),
    );
    const runtime = this.registry.obtain(session);
    this.store.touch(session);
    if (incoming.kind === 'request') {
      if (incoming.message.method === 'initialize')
        await this.initialize(runtime, incoming.message, principal);
      else this.streamable.serve(runtime, incoming.message, this.exchange(runtime), principal);
    } else {
      this.streamable.receive(runtime, incoming.message);
    }
    response.status(202).type('text/plain').send('Accepted');
  }

  /** The client's initialize: stored for every replica, then answered on the stream. */
  private async initialize(
    runtime: SessionRuntime,
    message: JSONRPCRequest,
    principal: Principal,
  ): Promise<void> {
    const parsed = InitializeRequestSchema.safeParse(message);
    if (!parsed.success) {
      runtime.toClient(
        jsonRpcError(
          message.id,
          ProtocolErrorCode.InvalidParams,
          `Invalid initialize request: ${parsed.error.message}`,
        ),
      );
      return;
    }
    const state = {
      initializeParams: parsed.data.params,
      protocolVersion: negotiatedVersion(parsed.data.params.protocolVersion),
    };
    await this.store.update(runtime.id, state);
    Object.assign(runtime.session, state);
    this.streamable.serve(runtime, message, this.exchange(runtime), principal);
  }

  private exchange(runtime: SessionRuntime): SessionStreamExchange {
    return new SessionStreamExchange((message) => runtime.toClient(message));
  }

  private async end(sessionId: string): Promise<void> {
    try {
      await this.store.end(sessionId);
      await this.registry.close(sessionId);
    } catch (error) {
      this.logger.warn(`Could not end session ${sessionId}: ${String(error)}`);
    }
  }
}

/**
 * An exchange whose every message, the answer too, goes out on the session's stream: the older
 * HTTP+SSE transport, where a POST only gets 202.
 */
export class SessionStreamExchange implements Exchange {
  private done = false;

  constructor(private readonly send: (message: JSONRPCMessage) => void) {}

  write(message: JSONRPCMessage): void {
    if (!this.done) this.send(message);
  }

  finish(message: JSONRPCMessage): void {
    if (this.done) return;
    this.done = true;
    this.send(message);
  }

  cancel(): void {
    this.done = true;
  }
}
