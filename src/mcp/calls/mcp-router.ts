import { Injectable, Logger } from '@nestjs/common';
import {
  ProtocolErrorCode,
  type Implementation,
  type JSONRPCErrorResponse,
  type InitializeResult,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type Result,
  type ServerCapabilities,
} from '@modelcontextprotocol/server';
import { AuditTrail } from '../../audit/audit-trail.service';
import { AUDITED_METHODS, mcpAuditRecord } from '../../audit/mcp-audit';
import { type Principal } from '../../auth/principal';
import { AppConfig } from '../../config/app-config';
import { Metrics } from '../../health/metrics';
import { inSpan } from '../../observability/spans';
import { McpApps } from '../apps/mcp-apps.service';
import { isLoggingLevel } from '../logging-level';
import { JsonLimitError } from '../../common/json-walk';
import { errorResponse, invalidParams, RpcError } from '../mcp-errors';
import { type SessionRuntime } from '../session/session-runtime';
import { SessionStore } from '../session/session.store';
import { Directories } from './directories.service';
import { PromptCalls } from './prompt-calls';
import { ResourceCalls } from './resource-calls';
import { type ScopeDirectory } from '../directory/scope-directory';
import { ToolCalls } from './tool-calls';
import { CallGuard } from './call-guard';

const PORTICO_VERSION = '1.0.0';

/** What every Portico endpoint offers, whatever its members: lists can grow after initialize. */
const CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
};

function cursorOf(params: unknown): string | undefined {
  const cursor = (params as { cursor?: unknown } | undefined)?.cursor;
  if (cursor === undefined) return undefined;
  if (typeof cursor !== 'string') throw invalidParams('cursor must be a string');
  return cursor;
}

/**
 * The one way a client's request goes: every MCP method of a session is answered here, each by
 * the part that owns it, against the scope's directory as it is now.
 */
@Injectable()
export class McpRouter {
  private readonly logger = new Logger(McpRouter.name);

  constructor(
    private readonly directories: Directories,
    private readonly store: SessionStore,
    private readonly tools: ToolCalls,
    private readonly resources: ResourceCalls,
    private readonly prompts: PromptCalls,
    private readonly apps: McpApps,
    private readonly metrics: Metrics,
    private readonly audit: AuditTrail,
    private readonly config: AppConfig,
    private readonly guard: CallGuard,
  ) {}

  /**
   * The answer to a client request; it never throws. Whatever goes wrong in the request's own
   * work ends that request, with its id, and nothing else: the caller does not await it.
   */
  async answer(
    runtime: SessionRuntime,
    request: JSONRPCRequest,
    signal: AbortSignal,
    principal: Principal,
  ): Promise<JSONRPCResponse> {
    try {
      return await inSpan(
        `mcp ${request.method}`,
        { 'mcp.method': request.method, 'mcp.session.id': runtime.id },
        () =>
          AUDITED_METHODS.has(request.method)
            ? this.upstreamOperation(runtime, request, signal, principal)
            : this.answerLocally(runtime, request, principal),
      );
    } catch (error) {
      return this.failed(runtime, request, error);
    }
  }

  /** The error answer of a request that threw; what Portico did not expect is logged. */
  private failed(
    runtime: SessionRuntime,
    request: JSONRPCRequest,
    error: unknown,
  ): JSONRPCErrorResponse {
    if (!(error instanceof RpcError)) {
      const context = `${request.method} (id ${String(request.id)}) of session ${runtime.id}`;
      if (error instanceof JsonLimitError) this.logger.warn(`${context} refused: ${error.message}`);
      else
        this.logger.error(
          `${context} failed`,
          error instanceof Error ? error.stack : String(error),
        );
    }
    return errorResponse(request.id, error);
  }

  private async answerLocally(
    runtime: SessionRuntime,
    request: JSONRPCRequest,
    principal: Principal,
  ): Promise<JSONRPCResponse> {
    try {
      const result = await this.route(runtime, request, principal);
      return { jsonrpc: '2.0', id: request.id, result };
    } catch (error) {
      return this.failed(runtime, request, error);
    }
  }

  /** A client notification about the session; cancellations are the transport's. */
  async notify(runtime: SessionRuntime, notification: JSONRPCNotification): Promise<void> {
    if (notification.method === 'notifications/roots/list_changed')
      await runtime.upstreams.notifyAll(notification);
  }

  /** The scope's directory; an error once its virtual server is gone or disabled. */
  async directory(runtime: SessionRuntime): Promise<ScopeDirectory> {
    const directory = await this.directories.get(runtime.scope);
    if (!directory)
      throw new RpcError(
        ProtocolErrorCode.InvalidRequest,
        'This virtual server no longer exists or is disabled',
      );
    return directory;
  }

  /**
   * An operation that reaches an upstream (tools/call, the hot path, among them): timed, counted
   * and put in the audit trail, whose write is buffered so that nothing here waits for it.
   */
  private async upstreamOperation(
    runtime: SessionRuntime,
    request: JSONRPCRequest,
    signal: AbortSignal,
    principal: Principal,
  ): Promise<JSONRPCResponse> {
    const started = performance.now();
    const served = { gateway: '' };
    let answer: JSONRPCResponse;
    try {
      const directory = await this.directory(runtime);
      const result = await this.upstreamResult(
        runtime,
        directory,
        request,
        signal,
        principal,
        served,
      );
      answer = { jsonrpc: '2.0', id: request.id, result };
    } catch (error) {
      answer = this.failed(runtime, request, error);
    }
    const durationMs = performance.now() - started;
    if (request.method === 'tools/call')
      this.metrics.recordCall(served.gateway, answer, durationMs / 1000);
    const context = {
      principal,
      serverId: runtime.session.serverId,
      clientName: runtime.session.initializeParams?.clientInfo.name ?? null,
      gateway: served.gateway,
      durationMs,
      kept: this.config.audit.arguments,
    };
    try {
      this.audit.record(mcpAuditRecord(request, answer, context));
    } catch (error) {
      // The operation is done upstream already: its answer goes out, and its entry is kept
      // without the arguments that could not be digested.
      this.logger.error(
        `Audit of ${request.method} (id ${String(request.id)}) of session ${runtime.id} kept no arguments`,
        error instanceof Error ? error.stack : String(error),
      );
      this.audit.record(mcpAuditRecord(request, answer, { ...context, kept: 'none' }));
    }
    return answer;
  }

  private upstreamResult(
    runtime: SessionRuntime,
    directory: ScopeDirectory,
    request: JSONRPCRequest,
    signal: AbortSignal,
    principal: Principal,
    served: { gateway: string },
  ): Promise<Result> {
    const { params } = request;
    switch (request.method) {
      case 'tools/call':
        return this.tools.call(
          runtime,
          this.guard.visible(directory, principal),
          directory.guard,
          principal,
          request.id,
          params,
          signal,
          served,
        );
      case 'resources/read':
        return this.resources.read(runtime, directory, params, served);
      case 'prompts/get':
        return this.prompts.get(runtime, directory, params, served);
      default:
        return this.prompts.complete(runtime, directory, params, served);
    }
  }

  private async route(
    runtime: SessionRuntime,
    request: JSONRPCRequest,
    principal: Principal,
  ): Promise<Result> {
    const { params } = request;
    switch (request.method) {
      case 'ping':
        return {};
      case 'logging/setLevel':
        return this.setLogLevel(runtime, params);
    }
    const directory = await this.directory(runtime);
    switch (request.method) {
      case 'initialize':
        return this.initialize(runtime, directory);
      case 'tools/list':
        return this.tools.list(runtime, this.guard.visible(directory, principal), cursorOf(params));
      case 'resources/list':
        return this.resources.list(
          runtime,
          directory,
          cursorOf(params),
          this.guard.visible(directory, principal),
        );
      case 'resources/templates/list':
        return this.resources.templates(directory, cursorOf(params));
      case 'resources/subscribe':
        return this.resources.subscribe(runtime, directory, params, true);
      case 'resources/unsubscribe':
        return this.resources.subscribe(runtime, directory, params, false);
      case 'prompts/list':
        return this.prompts.list(runtime, directory, cursorOf(params));
      default:
        throw new RpcError(ProtocolErrorCode.MethodNotFound, 'Method not found');
    }
  }

  private initialize(runtime: SessionRuntime, directory: ScopeDirectory): InitializeResult {
    const serverInfo: Implementation = {
      name: directory.server ? `Portico: ${directory.server.name}` : 'Portico',
      version: PORTICO_VERSION,
    };
    return {
      protocolVersion: runtime.session.protocolVersion,
      capabilities: { ...CAPABILITIES, ...this.apps.capabilities(directory.tools) },
      serverInfo,
    };
  }

  /** Stored for every replica; an upstream that does not take it fails nothing for the client. */
  private async setLogLevel(runtime: SessionRuntime, params: unknown): Promise<Result> {
    const level = (params as { level?: unknown } | undefined)?.level;
    if (!isLoggingLevel(level)) throw invalidParams('logging/setLevel needs a valid level');
    await this.store.update(runtime.id, { logLevel: level });
    runtime.session.logLevel = level;
    await runtime.upstreams.setLogLevel(level);
    return {};
  }
}
