import { Injectable } from '@nestjs/common';
import {
  type CallToolRequest,
  type ListToolsResult,
  type Result,
} from '@modelcontextprotocol/server';
import { type ApprovalRecord } from '../../approvals/approval-record';
import { ToolApprovals } from '../../approvals/tool-approvals';
import { AppConfig } from '../../config/app-config';
import { type RequestRoute } from '../../upstream/upstream-connection';
import { type CallTarget, McpApps } from '../apps/mcp-apps.service';
import { invalidParams, unknownTool } from '../protocol/mcp-errors';
import { ToolSearchService } from '../search/tool-search.service';
import { type McpCall, type Served } from '../protocol/mcp-call';
import { upstreamParams } from './upstream-params';
import { paginate } from './paginate';
import { type ToolDirectory } from '../directory/tool-directory';
import { type ScopeDirectory } from '../directory/scope-directory';
import { CallGuard } from './call-guard';
import { InputRounds } from './input-rounds';

/** tools/call params, checked only as far as routing needs; the upstream validates arguments. */
export function callParams(params: unknown): CallToolRequest['params'] {
  const candidate = params as Partial<CallToolRequest['params']> | undefined;
  if (typeof candidate?.name !== 'string') throw invalidParams('tools/call needs a tool name');
  const args = candidate.arguments;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    throw invalidParams('tools/call arguments must be an object');
  return candidate as CallToolRequest['params'];
}

/** The route of the messages an upstream sends during a client's request: back to that client. */
export function routeTo(call: McpCall): RequestRoute {
  return {
    // A 2025 session is one caller; each 2026-07-28 call is one of its own.
    caller: call.sessionId ?? call,
    notify: (notification) => call.notify(notification),
    ask: (request) => call.ask(request),
  };
}

/**
 * tools/list and tools/call. A call's name is resolved in one order: the scope's directory, tool
 * search (which answers `tool_search` and refuses deferred tools not yet promoted), a hashed
 * backend name of an app; then the call goes to the tool's upstream under its upstream name.
 */
@Injectable()
export class ToolCalls {
  constructor(
    private readonly config: AppConfig,
    private readonly toolSearch: ToolSearchService,
    private readonly apps: McpApps,
    private readonly guard: CallGuard,
    private readonly rounds: InputRounds,
    private readonly approvals: ToolApprovals,
  ) {}

  async list(call: McpCall, directory: ToolDirectory, cursor?: string): Promise<ListToolsResult> {
    const listed = await this.toolSearch.listed(directory, call.owner);
    let tools = listed ?? directory.definitions;
    // A modern client drops a tool whose x-mcp-header annotation is invalid: Portico does first.
    if (call.era === 'modern')
      tools = tools.filter((tool) => directory.headerParams(tool.name).valid);
    const page = paginate(tools, cursor, this.config.mcpPageSize);
    if (!page) throw invalidParams('Invalid cursor');
    call.sawList('tools', directory.fingerprint);
    return { tools: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  /**
   * Calls the tool; `served.gateway` says which gateway served it, for the metrics. The name is
   * resolved in the whole scope and judged by its policies (`scope.guard`), whatever name the
   * client used; `visible` is what the principal may see, for tool search and app names.
   */
  async call(
    request: McpCall,
    scope: ScopeDirectory,
    visible: ToolDirectory,
    params: unknown,
    served: Served,
  ): Promise<Result> {
    const call = callParams(params);
    const route = routeTo(request);
    const searched = await this.toolSearch.intercept(visible, request.owner, call, (notification) =>
      request.notify(notification),
    );
    if (searched) return searched;
    const tools = scope.tools;
    const tool: CallTarget | null =
      tools.byName.get(call.name) ?? (await this.apps.resolveCall(tools, visible, call.name));
    if (!tool) throw unknownTool(call.name);
    // Not served to a modern client, which must drop it: its x-mcp-header annotation is invalid.
    if (request.era === 'modern' && !tools.headerParams(call.name).valid)
      throw unknownTool(call.name);
    const { principal, signal } = request;
    served.gateway = tool.gatewaySlug;
    // Sent as the client sent them (absent stays absent) unless a hook replaced them.
    const given = call.arguments ?? {};
    // A retry's state is checked before anything runs, against the client's own arguments.
    const relayed = this.rounds.relay(
      request,
      {
        gatewayId: tool.gatewayId,
        method: 'tools/call',
        target: tool.originalName,
        arguments: call.arguments,
      },
      call,
    );
    const asked = { id: tool.id, name: call.name, gatewaySlug: tool.gatewaySlug };
    const note = (record: ApprovalRecord) => (served.approval = record);
    return this.guard.call(
      scope.guard,
      {
        serverId: scope.server?.id ?? null,
        toolName: call.name,
        toolId: tool.id,
        gatewaySlug: tool.gatewaySlug,
        principal,
        arguments: given,
      },
      tool.policy,
      (args) =>
        request.upstreams
          .call(tool, (connection) =>
            connection.request(
              'tools/call',
              upstreamParams(request, connection, {
                ...relayed.params,
                ...(args === given ? {} : { arguments: args }),
                name: tool.originalName,
              }),
              { signal, route, allowInputRequired: relayed.allowInputRequired },
            ),
          )
          .then((result) => relayed.answer(result)),
      {
        obtain: async (policy, version) => {
          const mark = { policy: policy.policy.id, version };
          if (relayed.approved?.policy === mark.policy && relayed.approved.version === version) {
            this.approvals.carried(request, asked, policy, note);
            return false;
          }
          const asking = await this.approvals.obtain(request, asked, given, policy, note);
          relayed.approved = mark;
          return asking;
        },
        overruled: (by) => {
          if (served.approval)
            served.approval = { ...served.approval, outcome: 'overruled', overruledBy: by };
        },
      },
    );
  }
}
