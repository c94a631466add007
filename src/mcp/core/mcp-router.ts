import { Injectable, Logger } from '@nestjs/common';
import {
  type DiscoverResult,
  ProtocolErrorCode,
  type JSONRPCErrorResponse,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type Result,
} from '@modelcontextprotocol/server';
import { AuditTrail } from '../../audit/audit-trail.service';
import { AUDITED_METHODS, mcpAuditRecord } from '../../audit/mcp-audit';
import { AppConfig } from '../../config/app-config';
import { Metrics } from '../../health/metrics';
import { inSpan } from '../../observability/spans';
import { McpApps } from '../apps/mcp-apps.service';
import { JsonLimitError } from '../../common/json-walk';
import { errorResponse, invalidParams, RpcError } from '../protocol/mcp-errors';
import { type McpCall, type Served } from '../protocol/mcp-call';
import { discoverResult } from './server-identity';
import { Directories } from '../directory/directories.service';
import { PromptCalls } from './prompt-calls';
import { ResourceCalls } from './resource-calls';
import { type ScopeDirectory } from '../directory/scope-directory';
import { ToolCalls } from './tool-calls';
import { CallGuard } from './call-guard';

/**
 * The methods an era adds of its own (a 2025 session's initialize, ping, log level and
 * subscriptions): the answer, or undefined for a method the router answers.
 */
export type OwnMethods = (request: JSONRPCRequest) => Promise<Result | undefined>;

function cursorOf(params: unknown): string | undefined {
  const cursor = (params as { cursor?: unknown } | undefined)?.cursor;
  if (cursor === undefined) return undefined;
  if (typeof cursor !== 'string') throw invalidParams('cursor must be a string');
  return cursor;
}

/**
 * The one way a client's request goes, whichever era it came in: every MCP method the two eras
 * share is answered here, each by the part that owns it, against the scope's directory as it is
 * now. What only a 2025 session has (initialize, ping, log level, subscriptions) is the session
 * adapter's (SessionRequests), which hands everything else here.
 */
@Injectable()
export class McpRouter {
  private readonly logger = new Logger(McpRouter.name);

  constructor(
    private readonly directories: Directories,
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
  async answer(call: McpCall, request: JSONRPCRequest, own?: OwnMethods): Promise<JSONRPCResponse> {
    try {
      return await inSpan(
        `mcp ${request.method}`,
        {
          'mcp.method': request.method,
          'mcp.protocol.version': call.protocolVersion,
          ...(call.sessionId ? { 'mcp.session.id': call.sessionId } : {}),
        },
        () =>
          AUDITED_METHODS.has(request.method)
            ? this.upstreamOperation(call, request)
            : this.answerLocally(call, request, own),
      );
    } catch (error) {
      return this.failed(call, request, error);
    }
  }

  /** The error answer of a request that threw; what Portico did not expect is logged. */
  failed(call: McpCall, request: JSONRPCRequest, error: unknown): JSONRPCErrorResponse {
    if (!(error instanceof RpcError)) {
      const context = `${request.method} (id ${String(request.id)}) of ${describe(call)}`;
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
    call: McpCall,
    request: JSONRPCRequest,
    own?: OwnMethods,
  ): Promise<JSONRPCResponse> {
    try {
      const result = (await own?.(request)) ?? (await this.route(call, request));
      return { jsonrpc: '2.0', id: request.id, result };
    } catch (error) {
      return this.failed(call, request, error);
    }
  }

  /** The scope's directory; an error once its virtual server is gone or disabled. */
  async directory(call: Pick<McpCall, 'scope'>): Promise<ScopeDirectory> {
    const directory = await this.directories.get(call.scope);
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
    call: McpCall,
    request: JSONRPCRequest,
  ): Promise<JSONRPCResponse> {
    const started = performance.now();
    const served: Served = { gateway: '' };
    let answer: JSONRPCResponse;
    try {
      const directory = await this.directory(call);
      const result = await this.upstreamResult(call, directory, request, served);
      answer = { jsonrpc: '2.0', id: request.id, result };
    } catch (error) {
      answer = this.failed(call, request, error);
    }
    const durationMs = performance.now() - started;
    if (request.method === 'tools/call')
      this.metrics.recordCall(served.gateway, answer, durationMs / 1000);
    const context = {
      principal: call.principal,
      serverId: call.scope.kind === 'server' ? call.scope.serverId : null,
      clientName: call.clientInfo?.name ?? null,
      gateway: served.gateway,
      approval: served.approval ?? null,
      durationMs,
      kept: this.config.audit.arguments,
    };
    try {
      this.audit.record(mcpAuditRecord(request, answer, context));
    } catch (error) {
      // The operation is done upstream already: its answer goes out, and its entry is kept
      // without the arguments that could not be digested.
      this.logger.error(
        `Audit of ${request.method} (id ${String(request.id)}) of ${describe(call)} kept no arguments`,
        error instanceof Error ? error.stack : String(error),
      );
      this.audit.record(mcpAuditRecord(request, answer, { ...context, kept: 'none' }));
    }
    return answer;
  }

  private upstreamResult(
    call: McpCall,
    directory: ScopeDirectory,
    request: JSONRPCRequest,
    served: Served,
  ): Promise<Result> {
    const { params } = request;
    switch (request.method) {
      case 'tools/call':
        return this.tools.call(
          call,
          directory,
          this.guard.visible(directory, call.principal),
          params,
          served,
        );
      case 'resources/read':
        return this.resources.read(call, directory, params, served);
      case 'prompts/get':
        return this.prompts.get(call, directory, params, served);
      default:
        return this.prompts.complete(call, directory, params, served);
    }
  }

  private async route(call: McpCall, request: JSONRPCRequest): Promise<Result> {
    const { params } = request;
    const directory = await this.directory(call);
    const visible = () => this.guard.visible(directory, call.principal);
    switch (request.method) {
      case 'server/discover':
        if (call.era !== 'modern') break;
        return this.discover(directory);
      case 'tools/list':
        return this.tools.list(call, visible(), cursorOf(params));
      case 'resources/list':
        return this.resources.list(call, directory, cursorOf(params), visible());
      case 'resources/templates/list':
        return this.resources.templates(directory, cursorOf(params));
      case 'prompts/list':
        return this.prompts.list(call, directory, cursorOf(params));
    }
    throw new RpcError(ProtocolErrorCode.MethodNotFound, 'Method not found');
  }

  /** What a 2026-07-28 client learns of the scope before anything else. */
  private discover(directory: ScopeDirectory): DiscoverResult {
    return discoverResult(directory, this.apps.capabilities(directory.tools));
  }
}

/** Who sent a request, for the log. */
function describe(call: McpCall): string {
  return call.sessionId ? `session ${call.sessionId}` : `a ${call.protocolVersion} request`;
}
