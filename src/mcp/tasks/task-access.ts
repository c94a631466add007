import { Injectable } from '@nestjs/common';
import { type Result } from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { type CallTarget, McpApps } from '../apps/mcp-apps.service';
import { CallGuard, callContext, reachedTool } from '../guard/call-guard';
import { type DirectoryTool } from '../directory/directory-tool';
import { type ScopeDirectory } from '../directory/scope-directory';
import { type TaskRoute } from './task-id-seal';

/**
 * A task is its tool's call, going on: each later step (its status, its result, the input it is
 * given, its cancellation, a listen's news of it) is judged as a call of that tool would be now.
 * The scope must still serve the tool to the caller (a member, enabled, listed to them by the
 * policies in force, or an app's backend tool as the call reached it), and its result passes the
 * server's `after` hooks, as a call's result does.
 */
@Injectable()
export class TaskAccess {
  constructor(
    private readonly guard: CallGuard,
    private readonly apps: McpApps,
  ) {}

  /** The task's tool, as the caller may use it in this scope now; null when they may not. */
  async tool(
    directory: ScopeDirectory,
    principal: Principal,
    route: TaskRoute,
  ): Promise<CallTarget | null> {
    const visible = this.guard.visible(directory, principal);
    const named: (CallTarget & Pick<DirectoryTool, 'consolidated'>) | null = await reachedTool(
      visible,
      route.tool,
      () => this.apps.resolveCall(directory.tools, visible, route.tool),
    );
    if (!named) return null;
    // A consolidated tool's task is its chosen target's.
    const tool = named.consolidated
      ? named.consolidated.targets.find((target) => target.tool.id === route.toolId)?.tool
      : named;
    if (!tool || (route.toolId !== undefined && tool.id !== route.toolId)) return null;
    const { policy } = directory.guard;
    return policy.empty || policy.listed(principal, tool.policy) ? tool : null;
  }

  /**
   * A result the task delivers, as a call's goes out: its resources named as the client reads
   * them (see ResourceDirectory.clientContent), then passed by the server's `after` hooks.
   */
  delivered(
    directory: ScopeDirectory,
    principal: Principal,
    route: TaskRoute,
    tool: CallTarget,
    result: Result,
  ): Promise<Result> {
    return this.guard.after(
      directory.guard,
      // What the call was given is not kept with its task.
      callContext(directory, tool, route.tool, principal, {}),
      directory.resources.clientResult(tool.gatewaySlug, result),
    );
  }
}
