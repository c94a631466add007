import { Injectable, Logger } from '@nestjs/common';
import {
  type DiscoverResult,
  ProtocolErrorCode,
  type JSONRPCErrorResponse,
  type JSONRPCResponse,
  type Result,
  type ServerCapabilities,
} from '@modelcontextprotocol/server';
import { AuditTrail } from '../../audit/audit-trail.service';
import { AUDITED_METHODS, mcpAuditRecord } from '../../audit/mcp-audit';
import { JsonLimitError } from '../../common/json-value';
import { AuditSettings } from '../../config/slices/audit.settings';
import { Metrics } from '../../observability/metrics';
import { inSpan } from '../../observability/request-context';
import { McpApps } from '../apps/mcp-apps.service';
import { Directories } from '../directory/directories.service';
import { type ScopeDirectory } from '../directory/scope-directory';
import { isInputRequired } from '../../upstream/upstream-client';
import { UpstreamFailure, UpstreamRpcError } from '../../upstream/upstream-error';
import { errorResponse, fromUpstream, RpcError } from '../protocol/mcp-errors';
import { type McpScope } from '../protocol/mcp-scope';
import { type McpRequest, type Served } from '../protocol/mcp-request';
import { NeedsInput } from './approval-step';
import { CallGuard } from '../guard/call-guard';
import { PromptCalls } from './prompt-calls';
import { ResourceCalls } from './resource-calls';
import { cursorOf } from '../protocol/paginate';
import { discoverResult } from './server-identity';
import { ToolCalls } from './tool-calls';
import { TaskCalls, type TaskServed } from '../tasks/task-calls';
import { SkillCalls } from '../skills/skill-calls';

/**
 * The core: one function from a request to its answer, whichever era it came in. Every MCP method
 * the two eras share is answered here, each by the part that owns it, against the scope's
 * directory as it is now; an operation that reaches an upstream is traced, counted and audited
 * here once. Its answer is a result (`complete`, or `input_required` for a round the client
 * answers in a retry), or an error. What only a 2025 session has (initialize, ping, log level,
 * subscriptions) is the session adapter's.
 */
@Injectable()
export class Dispatcher {
  private readonly logger = new Logger(Dispatcher.name);

  constructor(
    private readonly directories: Directories,
    private readonly tools: ToolCalls,
    private readonly resources: ResourceCalls,
    private readonly prompts: PromptCalls,
    private readonly apps: McpApps,
    private readonly metrics: Metrics,
    private readonly audit: AuditTrail,
    private readonly config: AuditSettings,
    private readonly guard: CallGuard,
    private readonly tasks: TaskCalls,
    private readonly skills: SkillCalls,
  ) {}

  /**
   * The answer to a client request; it never throws. Whatever goes wrong in the request's own
   * work ends that request, with its id, and nothing else: the caller does not await it.
   */
  async serve(request: McpRequest): Promise<JSONRPCResponse> {
    try {
      return await inSpan(
        `mcp ${request.method}`,
        () => ({
          'mcp.method': request.method,
          'mcp.protocol.version': request.meta.protocolVersion,
          ...(request.sessionId ? { 'mcp.session.id': request.sessionId } : {}),
        }),
        () =>
          AUDITED_METHODS.has(request.method)
            ? this.upstreamOperation(request)
            : this.answerLocally(request),
      );
    } catch (error) {
      return this.failed(request, error);
    }
  }

  /** The error answer of a request that threw; what Portico did not expect is logged. */
  failed(request: McpRequest, error: unknown): JSONRPCErrorResponse {
    if (!(error instanceof RpcError)) {
      const context = `${request.method} (id ${String(request.id)}) of ${describe(request)}`;
      if (error instanceof JsonLimitError) this.logger.warn(`${context} refused: ${error.message}`);
      else
        this.logger.error(
          `${context} failed`,
          error instanceof Error ? error.stack : String(error),
        );
    }
    return errorResponse(request.id, error);
  }

  /** The scope's directory; an error once its virtual server is gone or disabled. */
  async directory(scope: McpScope): Promise<ScopeDirectory> {
    const directory = await this.directories.get(scope);
    if (!directory)
      throw new RpcError(
        ProtocolErrorCode.InvalidRequest,
        'This virtual server no longer exists or is disabled',
      );
    return directory;
  }

  private async answerLocally(request: McpRequest): Promise<JSONRPCResponse> {
    try {
      return { jsonrpc: '2.0', id: request.id, result: await this.listed(request) };
    } catch (error) {
      return this.failed(request, error);
    }
  }

  /**
   * An operation that reaches an upstream (tools/call, the hot path, among them): timed, counted
   * and put in the audit trail. Each request has its entry, an input round's too (`input_required`:
   * an upstream that asked has seen the call, and a person asked is on record whether or not they
   * answer); a call is counted once, when it ends. Both are recorded once the answer is out: the
   * entry's own work (its digest, id and record) is no part of the client's wait.
   */
  private async upstreamOperation(request: McpRequest): Promise<JSONRPCResponse> {
    const started = performance.now();
    const served: TaskServed = { gateway: '' };
    let answer: JSONRPCResponse;
    try {
      const directory = await this.directory(request.scope);
      const result = await this.operation(request, directory, served);
      answer = { jsonrpc: '2.0', id: request.id, result };
    } catch (error) {
      answer =
        error instanceof NeedsInput
          ? { jsonrpc: '2.0', id: request.id, result: error.result }
          : this.failed(
              request,
              error instanceof UpstreamFailure || error instanceof UpstreamRpcError
                ? fromUpstream(error, served.gateway)
                : error,
            );
    }
    const durationMs = performance.now() - started;
    // The next tick comes after the promise jobs that carry the answer back to its wire, which
    // writes it at once, and before any further I/O; it keeps the request's context.
    process.nextTick(() => {
      try {
        this.recorded(request, answer, served, durationMs);
      } catch (error) {
        // Nothing is left to answer: a failure here ends nothing but the record.
        this.logger.error(
          `Recording ${request.method} (id ${String(request.id)}) of ${describe(request)} failed`,
          error instanceof Error ? error.stack : String(error),
        );
      }
    });
    return answer;
  }

  /** The operation's count and its audit entry. */
  private recorded(
    request: McpRequest,
    answer: JSONRPCResponse,
    served: TaskServed,
    durationMs: number,
  ): void {
    const round = 'result' in answer && isInputRequired(answer.result);
    const context = {
      principal: request.principal,
      serverId: request.scope.kind === 'server' ? request.scope.serverId : null,
      clientName: request.meta.clientInfo?.name ?? null,
      gateway: served.gateway,
      approval: served.approval ?? null,
      durationMs,
      kept: this.config.audit.arguments,
      task: served.task ?? null,
      target: served.tool ?? null,
      actedBy: request.playgroundBy ?? null,
    };
    const message = {
      jsonrpc: '2.0' as const,
      id: request.id,
      method: request.method,
      params: request.params,
    };
    if (request.method === 'tools/call' && !round)
      this.metrics.recordCall(served.gateway, answer, durationMs / 1000);
    try {
      this.audit.record(mcpAuditRecord(message, answer, context));
    } catch (error) {
      // The operation is done upstream already and its answer gone out: its entry is kept
      // without the arguments that could not be digested.
      this.logger.error(
        `Audit of ${request.method} (id ${String(request.id)}) of ${describe(request)} kept no arguments`,
        error instanceof Error ? error.stack : String(error),
      );
      this.audit.record(mcpAuditRecord(message, answer, { ...context, kept: 'none' }));
    }
  }

  private operation(
    request: McpRequest,
    directory: ScopeDirectory,
    served: Served,
  ): Promise<Result> {
    switch (request.method) {
      case 'tools/call':
        return this.tools.call(
          request,
          directory,
          this.guard.visible(directory, request.principal),
          served,
        );
      case 'resources/read':
        return this.readResource(request, directory, served);
      case 'skills/get':
        return this.skills.get(request, directory, served);
      case 'resources/directory/read':
        return this.skills.readDirectory(request, directory, served);
      case 'prompts/get':
        return this.prompts.get(request, directory, served);
      case 'tasks/get':
      case 'tasks/update':
      case 'tasks/cancel':
      case 'tasks/result':
        return this.tasks.serve(request, directory, served);
      default:
        return this.prompts.complete(request, directory, served);
    }
  }

  /** A skill's file goes to its skill's upstream; any other URI is an ordinary resource. */
  private async readResource(
    request: McpRequest,
    directory: ScopeDirectory,
    served: Served,
  ): Promise<Result> {
    return (
      (await this.skills.readFile(request, directory, served)) ??
      this.resources.read(request, directory, served)
    );
  }

  private async listed(request: McpRequest): Promise<Result> {
    const { params } = request;
    const directory = await this.directory(request.scope);
    const visible = () => this.guard.visible(directory, request.principal);
    switch (request.method) {
      case 'server/discover':
        return this.discover(request, directory);
      case 'tools/list':
        return this.tools.list(request, visible(), cursorOf(params));
      case 'resources/list':
        return this.resources.list(request, directory, cursorOf(params));
      case 'resources/templates/list':
        return this.resources.templates(directory, cursorOf(params));
      case 'prompts/list':
        return this.prompts.list(directory, cursorOf(params));
      case 'skills/list':
        return this.skills.list(request, directory, cursorOf(params));
    }
    throw new RpcError(ProtocolErrorCode.MethodNotFound, 'Method not found');
  }

  /**
   * What a 2026-07-28 client learns of the scope before anything else. Tasks are of the 2026-07-28
   * wire only: a 2025 session's initialize offers the rest.
   */
  private async discover(request: McpRequest, directory: ScopeDirectory): Promise<DiscoverResult> {
    return discoverResult(
      directory,
      await this.tasks.advertised(
        directory,
        request.affinity,
        await this.extraCapabilities(request, directory),
      ),
    );
  }

  /** What a scope offers beyond the base capabilities (extensions its members bring). */
  async extraCapabilities(
    request: Pick<McpRequest, 'scope'>,
    directory: ScopeDirectory,
  ): Promise<ServerCapabilities> {
    return this.skills.capabilities(request, this.apps.capabilities(directory.tools));
  }
}

/** Who sent a request, for the log. */
function describe(request: McpRequest): string {
  return request.sessionId
    ? `session ${request.sessionId}`
    : `a ${request.meta.protocolVersion} request`;
}
