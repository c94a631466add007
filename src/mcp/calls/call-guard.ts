import { Injectable, Logger } from '@nestjs/common';
import { type CallToolResult, ProtocolErrorCode, type Result } from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import {
  HookRefusal,
  type ToolCallContext,
  type ToolCallHook,
} from '../../policies/hooks/tool-call-hook';
import { RateLimitMetrics } from '../../rate-limits/rate-limit-metrics';
import { RateLimitErrorCode, RateLimitException } from '../../rate-limits/rate-limit.exception';
import { RateLimiter } from '../../rate-limits/rate-limiter.service';
import { type ScopeDirectory, type ScopeGuard } from '../directory/scope-directory';
import { type ToolDirectory } from '../directory/tool-directory';
import { rateLimited, RpcError, toolCallRefused, unknownTool } from '../mcp-errors';

/** The tool a call resolved to. */
export interface GuardedTarget {
  id: string;
  gatewaySlug: string;
}

/**
 * Tool rules, rate limits and hooks on the MCP call path. Each costs nothing where the scope has
 * none: the rules' views are memoised per directory and principal kind, and a call without an
 * applicable limit or a hook goes straight to the upstream.
 */
@Injectable()
export class CallGuard {
  private readonly logger = new Logger(CallGuard.name);
  private readonly views = new WeakMap<ToolDirectory, Map<string, ToolDirectory>>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly metrics: RateLimitMetrics,
  ) {}

  /** The part of the scope's tools this principal may see and call. */
  visible(directory: ScopeDirectory, principal: Principal): ToolDirectory {
    const { policy } = directory.guard;
    if (policy.empty) return directory.tools;
    let views = this.views.get(directory.tools);
    if (!views) {
      views = new Map();
      this.views.set(directory.tools, views);
    }
    const key = policy.keyOf(principal);
    let view = views.get(key);
    if (!view) {
      view = directory.tools.restrictedTo((tool) => policy.allows(principal, tool.id));
      views.set(key, view);
    }
    return view;
  }

  /**
   * Makes the call through the guard: a denied tool is as unknown as a missing one, a call past a
   * rate limit is refused with when to retry, and the server's hooks run around the upstream.
   */
  async call(
    guard: ScopeGuard,
    context: ToolCallContext,
    target: GuardedTarget,
    upstream: (args: Record<string, unknown>) => Promise<Result>,
  ): Promise<Result> {
    if (!guard.policy.empty && !guard.policy.allows(context.principal, target.id))
      throw unknownTool(context.toolName);
    if (guard.limits.length > 0) await this.limit(guard, context.principal, target.id);
    if (guard.hooks.length === 0) return upstream(context.arguments);
    for (const hook of guard.hooks) {
      if (hook.before) await this.step(hook, () => hook.before!(context));
    }
    let result = (await upstream(context.arguments)) as CallToolResult;
    for (const hook of guard.hooks) {
      if (hook.after) {
        const current = result;
        result = await this.step(hook, () => hook.after!(context, current));
      }
    }
    return result;
  }

  private async limit(guard: ScopeGuard, principal: Principal, toolId: string): Promise<void> {
    try {
      await this.limiter.consume(guard.limits, principal, toolId);
    } catch (error) {
      if (!(error instanceof RateLimitException)) throw error;
      if (error.code !== RateLimitErrorCode.Exceeded)
        throw new RpcError(ProtocolErrorCode.InternalError, error.message);
      this.metrics.rejections.inc({ surface: 'mcp' });
      const details = error.details as { retryAfterSeconds: number; retryAt: string };
      throw rateLimited(error.message, details.retryAfterSeconds, details.retryAt);
    }
  }

  /** One hook's step; whatever it throws refuses the call (fail closed). */
  private async step<T>(hook: ToolCallHook, run: () => T | Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof HookRefusal) throw toolCallRefused(hook.name, error.message, true);
      const message = error instanceof Error ? error.message : String(error);
      this.logger.warn(`Hook '${hook.name}' failed: ${message}`);
      throw toolCallRefused(hook.name, message, false);
    }
  }
}
