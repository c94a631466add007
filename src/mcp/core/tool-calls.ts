import { Injectable } from '@nestjs/common';
import {
  type CallToolRequest,
  type ListToolsResult,
  type Result,
} from '@modelcontextprotocol/server';
import { type ApprovalRecord } from '../../approvals/approval-record';
import { McpSettings } from '../../config/slices/mcp.settings';
import { type CallTarget, McpApps } from '../apps/mcp-apps.service';
import { RESOURCE_BLOCKS } from '../directory/resource-directory';
import { type ScopeDirectory } from '../directory/scope-directory';
import { type ToolDirectory } from '../directory/tool-directory';
import { invalidParams, unknownTool } from '../protocol/mcp-errors';
import { type McpRequest, type Served } from '../protocol/mcp-request';
import { ToolSearchService } from '../search/tool-search.service';
import { ApprovalStep } from './approval-step';
import { CallGuard, callContext, reachedTool } from '../guard/call-guard';
import { Continuation, type RoundTarget } from './continuation';
import { routedCall } from './consolidated-call';
import { paginate } from '../protocol/paginate';
import { isInputRequired, UpstreamClient } from '../../upstream/upstream-client';
import { TaskCalls } from '../tasks/task-calls';
import { TOOL_SEARCH_NAME } from '../../common/tool-name-rule';

/** tools/call params, checked only as far as routing needs; the upstream validates arguments. */
export function callParams(params: unknown): CallToolRequest['params'] {
  const candidate = params as Partial<CallToolRequest['params']> | undefined;
  if (typeof candidate?.name !== 'string') throw invalidParams('tools/call needs a tool name');
  const args = candidate.arguments;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    throw invalidParams('tools/call arguments must be an object');
  return candidate as CallToolRequest['params'];
}

/**
 * Whether a result's content holds a block that names a resource, which goes out under the
 * client's URI (ResourceDirectory.clientContent); most results hold none, and go as they came.
 */
function namesResources(result: Result): boolean {
  const { content } = result as { content?: unknown };
  return (
    Array.isArray(content) &&
    content.some((block: { type?: unknown } | null) => RESOURCE_BLOCKS.has(block?.type))
  );
}

/**
 * tools/list and tools/call. A call's name is resolved in one order: the scope's directory, tool
 * search (which answers `tool_search` and refuses deferred tools not yet promoted), a hashed
 * backend name of an app; then the call goes to the tool's upstream under its upstream name. A
 * consolidated tool's call is first routed to the member tool its `target` names, which the rest
 * of the path then judges and calls as if it had been called by name.
 */
@Injectable()
export class ToolCalls {
  constructor(
    private readonly config: McpSettings,
    private readonly toolSearch: ToolSearchService,
    private readonly apps: McpApps,
    private readonly guard: CallGuard,
    private readonly continuation: Continuation,
    private readonly approvals: ApprovalStep,
    private readonly client: UpstreamClient,
    private readonly tasks: TaskCalls,
  ) {}

  async list(request: McpRequest, tools: ToolDirectory, cursor?: string): Promise<ListToolsResult> {
    const listed = await this.toolSearch.listed(tools, request.owner);
    const page = paginate(listed ?? tools.definitions, cursor, this.config.mcpPageSize);
    if (!page) throw invalidParams('Invalid cursor');
    return { tools: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  /**
   * Calls the tool; `served.gateway` says which gateway served it, for the metrics. The name is
   * resolved in the whole scope and judged by its policies (`scope.guard`), whatever name the
   * client used; `visible` is what the principal may see, for tool search and app names.
   */
  async call(
    request: McpRequest,
    scope: ScopeDirectory,
    visible: ToolDirectory,
    served: Served,
  ): Promise<Result> {
    let call = callParams(request.params);
    // A search costs CPU over the whole catalogue, and a deferred tool's refusal a read of the
    // promotions: each counts as a call on the scope, or a client could make them without end
    // where its tool calls are limited.
    if (visible.search.enabled) {
      const counted = () => this.guard.limit(scope.guard, request.principal, null);
      if (call.name === TOOL_SEARCH_NAME) await counted();
      const searched = await this.toolSearch.intercept(visible, request.owner, call, {
        notify: (notification) => request.sink.notify(notification),
        counted,
      });
      if (searched) return searched;
    }
    const tools = scope.tools;
    let tool: CallTarget | null = await reachedTool(tools, call.name, () =>
      this.apps.resolveCall(tools, visible, call.name),
    );
    if (!tool) throw unknownTool(call.name);
    if ('consolidated' in tool && tool.consolidated) ({ tool, call } = routedCall(visible, call));
    served.gateway = tool.gatewaySlug;
    // Sent as the client sent them (absent stays absent) unless a hook replaced them.
    const given = call.arguments ?? {};
    const round: RoundTarget = {
      gatewayId: tool.gatewayId,
      method: 'tools/call',
      target: tool.originalName,
      arguments: call.arguments,
    };
    // A retry's state is checked before anything runs, against the client's own arguments; a
    // call that continues no round opens one only when its upstream or a policy asks one.
    let continued = request.resume ? this.continuation.open(request, round) : null;
    const rounds = () => (continued ??= this.continuation.open(request, round));
    const asked = { id: tool.id, name: call.name, gatewaySlug: tool.gatewaySlug };
    const note = (record: ApprovalRecord) => (served.approval = record);
    return this.guard.call(
      scope.guard,
      callContext(scope, tool, call.name, request.principal, given),
      tool.policy,
      async (args) => {
        const answer = await this.client.request(
          tool.gatewayId,
          request.affinity,
          'tools/call',
          {
            ...call,
            ...continued?.upstream,
            ...(args === given ? {} : { arguments: args }),
            name: tool.originalName,
          },
          request,
        );
        if (isInputRequired(answer)) return rounds().answer(answer);
        // A task the upstream created goes out under Portico's id; a result names resources as
        // the client reads them.
        return answer.resultType === 'task'
          ? this.tasks.created(
              request,
              answer,
              { gatewayId: tool.gatewayId, tool: call.name, toolId: tool.id },
              served,
            )
          : namesResources(answer)
            ? scope.resources.clientResult(tool.gatewaySlug, answer)
            : answer;
      },
      {
        obtain: (policy, version) =>
          this.approvals.obtain(request, asked, given, policy, version, rounds(), note),
        overruled: (by) => {
          if (served.approval)
            served.approval = { ...served.approval, outcome: 'overruled', overruledBy: by };
          else this.approvals.overruled(request, asked, rounds(), by, note);
        },
      },
    );
  }
}
