import { Injectable } from '@nestjs/common';
import {
  type CallToolRequest,
  type JSONRPCNotification,
  type ListToolsResult,
  type RequestId,
  type Result,
} from '@modelcontextprotocol/server';
import { AppConfig } from '../../config/app-config';
import { type RequestRoute } from '../../upstream/upstream-connection';
import { McpApps } from '../apps/mcp-apps.service';
import { invalidParams, unknownTool } from '../mcp-errors';
import { ToolSearchService } from '../search/tool-search.service';
import { type SessionRuntime } from '../session/session-runtime';
import { type UpstreamRef } from '../session/session-upstreams';
import { paginate } from './paginate';
import { type ToolDirectory } from '../directory/tool-directory';
import { type ScopeGuard } from '../directory/scope-directory';
import { type Principal } from '../../auth/principal';
import { CallGuard } from './call-guard';

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
export function routeTo(runtime: SessionRuntime, id: RequestId, signal: AbortSignal): RequestRoute {
  return {
    notify: (notification) => runtime.toClient(notification, id),
    ask: (request) => runtime.ask(request, id, signal),
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
  ) {}

  async list(
    runtime: SessionRuntime,
    directory: ToolDirectory,
    cursor?: string,
  ): Promise<ListToolsResult> {
    const listed = await this.toolSearch.listed(directory, runtime.id);
    const page = paginate(listed ?? directory.definitions, cursor, this.config.mcpPageSize);
    if (!page) throw invalidParams('Invalid cursor');
    runtime.seen.set('tools', directory.fingerprint);
    return { tools: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  /**
   * Calls the tool; `served.gateway` says which gateway served it, for the metrics. `directory`
   * is what the principal may see; `guard` the scope's rules, limits and hooks.
   */
  async call(
    runtime: SessionRuntime,
    directory: ToolDirectory,
    guard: ScopeGuard,
    principal: Principal,
    id: RequestId,
    params: unknown,
    signal: AbortSignal,
    served: { gateway: string },
  ): Promise<Result> {
    const call = callParams(params);
    const route = routeTo(runtime, id, signal);
    const searched = await this.toolSearch.intercept(
      directory,
      runtime.id,
      call,
      (notification: JSONRPCNotification) => route.notify(notification),
    );
    if (searched) return searched;
    const tool: (UpstreamRef & { id: string; originalName: string }) | null =
      directory.byName.get(call.name) ?? (await this.apps.resolveCall(directory, call.name));
    if (!tool) throw unknownTool(call.name);
    served.gateway = tool.gatewaySlug;
    // Sent as the client sent them (absent stays absent) unless a hook replaced them.
    const given = call.arguments ?? {};
    return this.guard.call(
      guard,
      {
        serverId: directory.server?.id ?? null,
        toolName: call.name,
        toolId: tool.id,
        gatewaySlug: tool.gatewaySlug,
        principal,
        arguments: given,
      },
      tool,
      (args) =>
        runtime.upstreams.call(tool, (connection) =>
          connection.request(
            'tools/call',
            {
              ...call,
              ...(args === given ? {} : { arguments: args }),
              name: tool.originalName,
            },
            { signal, route },
          ),
        ),
    );
  }
}
