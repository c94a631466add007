import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  type MessageExtraInfo,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { type Request, type Response } from 'express';
import { mcpAuthorized } from '../../auth/mcp-access';
import { type Principal } from '../../auth/principal';
import { ToolDirectoryService } from '../directory/tool-directory.service';
import { type McpScope } from '../mcp-scope';
import { type SessionState, SessionStore } from '../session/session.store';
import { SessionRuntimes } from '../session/session-runtimes.service';
import { EventStream, HttpExchange } from './exchange';
import { classify, jsonRpcError } from './jsonrpc';

/** A refusal at the HTTP level, with a JSON-RPC error body as the SDK's transports send. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: number = ErrorCode.InvalidRequest,
  ) {
    super(message);
  }
}

function accepts(request: Request, type: string): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes(type) || accept.includes('*/*');
}

/**
 * The Streamable HTTP transport of the MCP endpoints (protocol 2025-11-25 and older): session ids,
 * header checks, and dispatch of POST, GET and DELETE to the session's runtime on this replica.
 */
@Injectable()
export class McpEndpoint {
  constructor(
    private readonly store: SessionStore,
    private readonly runtimes: SessionRuntimes,
    private readonly directories: ToolDirectoryService,
  ) {}

  async handle(request: Request, response: Response, scope: McpScope): Promise<void> {
    try {
      this.checkRequest(request, scope);
      switch (request.method) {
        case 'POST':
          return await this.post(request, response, scope);
        case 'GET':
          return await this.get(request, response, scope);
        case 'DELETE':
          return await this.delete(request, response, scope);
        default:
          response.setHeader('Allow', 'GET, POST, DELETE');
          throw new Refusal(405, 'Method not allowed');
      }
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      if (!response.headersSent)
        response.status(error.status).json(jsonRpcError(null, error.code, error.message));
    }
  }

  private checkRequest(request: Request, scope: McpScope): void {
    if (!mcpAuthorized(request, scope))
      throw new Refusal(403, 'This token may not use this MCP endpoint');
  }

  private async post(request: Request, response: Response, scope: McpScope): Promise<void> {
    if (!request.is('application/json'))
      throw new Refusal(415, 'Content-Type must be application/json');
    if (!accepts(request, 'application/json') || !accepts(request, 'text/event-stream')) {
      throw new Refusal(406, 'Accept must include application/json and text/event-stream');
    }
    const incoming = classify(request.body);
    if (incoming.kind === 'invalid') {
      response
        .status(400)
        .json(jsonRpcError(incoming.id, ErrorCode.InvalidRequest, incoming.reason));
      return;
    }
    const extra: MessageExtraInfo = { requestInfo: { headers: request.headers } };
    if (incoming.kind === 'request' && incoming.message.method === 'initialize') {
      await this.initialize(request, response, scope, incoming.message, extra);
      return;
    }
    const session = await this.session(request, scope);
    const runtime = await this.runtimes.obtain(session);
    this.store.touch(session);
    switch (incoming.kind) {
      case 'request':
        runtime.receiveRequest(incoming.message, new HttpExchange(response), extra);
        return;
      case 'notification':
        runtime.transport.receiveNotification(incoming.message, extra);
        break;
      case 'response':
        runtime.transport.receiveResponse(incoming.message);
        break;
    }
    response.status(202).end();
  }

  private async initialize(
    request: Request,
    response: Response,
    scope: McpScope,
    message: JSONRPCRequest,
    extra: MessageExtraInfo,
  ): Promise<void> {
    if (request.headers['mcp-session-id'] !== undefined) {
      throw new Refusal(400, 'initialize must not carry an Mcp-Session-Id');
    }
    const parsed = InitializeRequestSchema.safeParse(message);
    if (!parsed.success)
      throw new Refusal(
        400,
        `Invalid initialize request: ${parsed.error.message}`,
        ErrorCode.InvalidParams,
      );
    const directory = await this.directories.get(scope);
    if (!directory) throw new Refusal(404, 'No such virtual server, or it is disabled');
    const requested = parsed.data.params.protocolVersion;
    const session = await this.store.create({
      id: randomUUID(),
      serverId: scope.kind === 'server' ? scope.serverId : null,
      subject: (request.principal as Principal).subject,
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
        ? requested
        : LATEST_PROTOCOL_VERSION,
      initializeParams: parsed.data.params,
      logLevel: null,
      promotions: null,
    });
    const runtime = await this.runtimes.create(session, directory);
    response.setHeader('Mcp-Session-Id', session.id);
    runtime.transport.receiveRequest(message, new HttpExchange(response), extra);
  }

  private async get(request: Request, response: Response, scope: McpScope): Promise<void> {
    if (!accepts(request, 'text/event-stream'))
      throw new Refusal(406, 'Accept must include text/event-stream');
    const session = await this.session(request, scope);
    const runtime = await this.runtimes.obtain(session);
    await runtime.streamOpened();
    if (runtime.transport.hasStream)
      throw new Refusal(409, 'This session already has a stream open here');
    const stream: EventStream = new EventStream(response, () =>
      runtime.transport.detachStream(stream),
    );
    runtime.transport.attachStream(stream);
  }

  private async delete(request: Request, response: Response, scope: McpScope): Promise<void> {
    const session = await this.session(request, scope);
    await this.store.end(session.id);
    await this.runtimes.close(session.id);
    response.status(200).end();
  }

  /** The request's session: 400 without an id, 404 for an unknown, ended or foreign one. */
  private async session(request: Request, scope: McpScope): Promise<SessionState> {
    const id = request.headers['mcp-session-id'];
    if (typeof id !== 'string' || id === '')
      throw new Refusal(400, 'Mcp-Session-Id header is required');
    const session = await this.store.find(id);
    const serverId = scope.kind === 'server' ? scope.serverId : null;
    if (
      !session ||
      session.serverId !== serverId ||
      session.subject !== (request.principal as Principal).subject
    ) {
      throw new Refusal(404, 'Session not found', ErrorCode.ConnectionClosed);
    }
    const version = request.headers['mcp-protocol-version'];
    if (
      version !== undefined &&
      (version !== session.protocolVersion || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
    ) {
      throw new Refusal(400, `Unsupported MCP-Protocol-Version: ${String(version)}`);
    }
    if (!(await this.directories.get(scope)))
      throw new Refusal(404, 'No such virtual server, or it is disabled');
    return session;
  }
}
