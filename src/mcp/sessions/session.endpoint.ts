import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import {
  classifyInboundRequest,
  ProtocolErrorCode,
  type JSONRPCMessage,
  type JSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { InitializeRequestSchema } from '@modelcontextprotocol/core';
import { type Principal } from '../../auth/principal';
import { LEGACY_PROTOCOL_VERSIONS } from '../../upstream/eras/protocol-era';
import { AppConfig } from '../../config/app-config';
import { Directories } from '../directory/directories.service';
import { ModernEndpoint } from '../http/modern.endpoint';
import { SessionRequests } from './session-requests';
import { LISTS } from '../directory/scope-directory';
import { CONNECTION_CLOSED, McpRefusal } from '../protocol/mcp-errors';
import { type McpScope } from '../protocol/mcp-scope';
import { type SessionRuntime } from './session-runtime';
import { SessionRegistry } from './session-registry.service';
import { type SessionState, SessionStore } from './session.store';
import { parseEventId } from './stream-events.store';
import { type Exchange } from './client-stream';
import { HttpExchange } from './exchange';
import { idOf, incomingOf, readBody } from '../http/incoming';
import { SseResponse } from '../streams/sse-response';
import { endAtExpiry } from '../streams/stream-expiry';
import { StreamQuota } from '../streams/stream-quota';

function accepts(request: IncomingMessage, type: string): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes(type) || accept.includes('*/*');
}

/** Whether the body is declared `application/json` (parameters such as charset aside). */
function isJson(request: IncomingMessage): boolean {
  const type = request.headers['content-type'] ?? '';
  const end = type.indexOf(';');
  return (end === -1 ? type : type.slice(0, end)).trim().toLowerCase() === 'application/json';
}

/**
 * Whether a POST claims the 2026-07-28 wire: a version header of no 2025 revision, or the
 * envelope's protocol version in `params._meta` (the SDK's own first test).
 */
function claimsModern(body: unknown, versionHeader: string | undefined): boolean {
  if (versionHeader !== undefined && !LEGACY_PROTOCOL_VERSIONS.includes(versionHeader)) return true;
  const meta = (body as { params?: { _meta?: unknown } } | null)?.params?._meta;
  return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}

/** The protocol version an initialize settles on: the client's when supported, else the latest. */
export function negotiatedVersion(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The Streamable HTTP transport of the MCP endpoints, both eras on the same URLs. Each POST is
 * classified by its body, as the SDK does: a request with the 2026-07-28 `_meta` envelope goes to
 * the stateless wire (ModernEndpoint), a malformed envelope is refused (never read as 2025), and
 * everything else is the 2025 wire, unchanged: session ids, header checks, and dispatch of POST,
 * GET and DELETE to the session on this replica.
 */
@Injectable()
export class StreamableHttpEndpoint {
  constructor(
    private readonly config: AppConfig,
    private readonly store: SessionStore,
    private readonly registry: SessionRegistry,
    private readonly directories: Directories,
    private readonly requests: SessionRequests,
    private readonly modern: ModernEndpoint,
    private readonly quota: StreamQuota,
  ) {}

  async post(
    request: IncomingMessage,
    response: ServerResponse,
    scope: McpScope,
    principal: Principal,
  ): Promise<void> {
    if (!isJson(request)) throw new McpRefusal(415, 'Content-Type must be application/json');
    if (!accepts(request, 'application/json') || !accepts(request, 'text/event-stream'))
      throw new McpRefusal(406, 'Accept must include application/json and text/event-stream');
    const body = await readBody(request, {
      maxBytes: this.config.bodyLimitBytes,
      maxDepth: this.config.jsonMaxDepth,
    });
    const versionHeader = headerOf(request, 'mcp-protocol-version');
    // What claims nothing of 2026-07-28 is the 2025 wire: the SDK's classifier (three schema
    // parses of the body) runs only for what does.
    const route = claimsModern(body, versionHeader)
      ? classifyInboundRequest({
          httpMethod: 'POST',
          protocolVersionHeader: versionHeader,
          mcpMethodHeader: headerOf(request, 'mcp-method'),
          mcpNameHeader: headerOf(request, 'mcp-name'),
          body,
        })
      : null;
    if (route?.kind === 'modern') {
      // A notification has nothing to answer on this wire (cancelling is closing the stream).
      if (route.messageKind === 'notification') response.writeHead(202).end();
      else await this.modern.serve(request, response, scope, principal, route.message);
      return;
    }
    // What is not JSON-RPC at all stays the 2025 wire's to refuse, in its own words.
    if (route?.kind === 'reject' && route.rung !== 'jsonrpc-shape')
      throw new McpRefusal(route.httpStatus, route.message, route.code, idOf(body), route.data);
    const incoming = incomingOf(body);
    if (incoming.kind === 'request' && incoming.message.method === 'initialize') {
      await this.initialize(request, response, scope, principal, incoming.message);
      return;
    }
    const session = await this.session(request, scope, principal);
    const runtime = this.registry.obtain(session);
    this.store.touch(session);
    if (incoming.kind === 'request') {
      this.serve(runtime, incoming.message, this.exchange(response, runtime, principal), principal);
      return;
    }
    this.receive(runtime, incoming.message);
    response.writeHead(202).end();
  }

  async get(
    request: IncomingMessage,
    response: ServerResponse,
    scope: McpScope,
    principal: Principal,
  ): Promise<void> {
    if (!accepts(request, 'text/event-stream'))
      throw new McpRefusal(406, 'Accept must include text/event-stream');
    const session = await this.session(request, scope, principal);
    const runtime = this.registry.obtain(session);
    if (runtime.legacy) throw new McpRefusal(405, 'This session uses the HTTP+SSE transport');
    const lastEventId = request.headers['last-event-id'];
    const resumes = typeof lastEventId === 'string' ? parseEventId(lastEventId) : null;
    if (!resumes && runtime.hasStream)
      throw new McpRefusal(409, 'This session already has a stream open here');
    // From now on the client hears of changes to its lists as they are now.
    const directory = await this.directories.get(scope);
    for (const kind of LISTS)
      if (!runtime.seen.has(kind)) runtime.seen.set(kind, directory?.version(kind) ?? '');
    this.quota.admit(principal, response);
    const sse = new SseResponse(response, { keepalive: true });
    // Ended as a changed identity ends it: the client resumes it, with a credential checked anew.
    endAtExpiry(principal, sse, () => sse.end());
    if (resumes) await runtime.resume(sse, resumes, principal);
    else runtime.openSessionStream(sse, principal);
  }

  async delete(
    request: IncomingMessage,
    response: ServerResponse,
    scope: McpScope,
    principal: Principal,
  ): Promise<void> {
    const session = await this.session(request, scope, principal);
    await this.store.end(session.id);
    await this.registry.close(session.id);
    response.writeHead(200).end();
  }

  /** A client request, answered on its exchange by the router, for the principal that sent it. */
  serve(
    runtime: SessionRuntime,
    message: JSONRPCRequest,
    exchange: Exchange,
    principal: Principal,
  ): void {
    void runtime.serve(message.id, exchange, (signal) =>
      this.requests.answer(runtime, message, signal, principal),
    );
  }

  /** Where the answer to a POSTed request goes; if it becomes a stream, the principal holds it. */
  private exchange(
    response: ServerResponse,
    runtime: SessionRuntime,
    principal: Principal,
  ): HttpExchange {
    return new HttpExchange(response, runtime, () => this.quota.count(principal, response));
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

  private async initialize(
    request: IncomingMessage,
    response: ServerResponse,
    scope: McpScope,
    principal: Principal,
    message: JSONRPCRequest,
  ): Promise<void> {
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
    const session = await this.store.create({
      id: randomUUID(),
      serverId: scope.kind === 'server' ? scope.serverId : null,
      subject: principal.subject,
      userId: principal.userId,
      transport: 'streamable-http',
      protocolVersion: negotiatedVersion(parsed.data.params.protocolVersion),
      initializeParams: parsed.data.params,
      logLevel: null,
      subscriptions: [],
    });
    const runtime = this.registry.obtain(session);
    response.setHeader('Mcp-Session-Id', session.id);
    this.serve(runtime, message, this.exchange(response, runtime, principal), principal);
  }

  /**
   * The request's session: 400 without an id, 404 for an unknown, ended or foreign one, 400 for an
   * unknown protocol version. Any version the SDK supports is accepted, not only the negotiated.
   */
  private async session(
    request: IncomingMessage,
    scope: McpScope,
    principal: Principal,
  ): Promise<SessionState> {
    const id = request.headers['mcp-session-id'];
    if (typeof id !== 'string' || id === '')
      throw new McpRefusal(400, 'Mcp-Session-Id header is required');
    const version = request.headers['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version)))
      throw new McpRefusal(400, `Unsupported MCP-Protocol-Version: ${String(version)}`);
    return sessionOf(this.store, this.directories, id, scope, principal);
  }
}

/** A live session of this scope and principal, and its scope still served; else 404. */
export async function sessionOf(
  store: SessionStore,
  directories: Directories,
  id: string,
  scope: McpScope,
  principal: Principal,
): Promise<SessionState> {
  const session = await store.find(id);
  const serverId = scope.kind === 'server' ? scope.serverId : null;
  if (!session || session.serverId !== serverId || session.subject !== principal.subject)
    throw new McpRefusal(404, 'Session not found', CONNECTION_CLOSED);
  if (!(await directories.get(scope)))
    throw new McpRefusal(404, 'No such virtual server, or it is disabled');
  return session;
}
