import { Injectable, Logger } from '@nestjs/common';
import { type CallToolResult, ProtocolErrorCode, type Result } from '@modelcontextprotocol/server';
import { type ApprovalPolicy } from '../../approvals/approval-record';
import { type Principal } from '../../auth/principal';
import {
  type PolicyDecision,
  PolicyInputTooLarge,
  type PolicyToolSource,
  VIEW_MEMORY,
} from '../../policies/policy-set';
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
import { invalidParams, rateLimited, RpcError, toolCallRefused, unknownTool } from '../mcp-errors';

/** The tool a call resolved to: a directory's tool, or an app's backend tool found by hash. */
export type GuardedTarget = PolicyToolSource;

/**
 * Policies, rate limits and hooks on the MCP call path. Each costs nothing where the scope has
 * none: the policies' views are memoised per directory and principal key, and a call without an
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
      if (views.size >= VIEW_MEMORY) views.clear();
      view = directory.tools.restrictedTo((tool) => policy.listed(principal, tool, key));
      views.set(key, view);
    }
    return view;
  }

  /**
   * What the scope's policies decide of this call: a map lookup when the tool's listing already
   * decided it, else its call-dependent policies evaluated with the arguments and the time.
   */
  decide(guard: ScopeGuard, context: ToolCallContext, target: GuardedTarget): PolicyDecision {
    try {
      return guard.policy.decide(
        context.principal,
        target,
        context.arguments,
        new Date(),
        context.toolName,
      );
    } catch (error) {
      if (error instanceof PolicyInputTooLarge) throw invalidParams(error.message);
      throw error;
    }
  }

  /**
   * Makes the call through the guard: a denied tool is as unknown as a missing one, a call past a
   * rate limit is refused with when to retry, a call a policy holds for approval waits for a
   * person's yes (`approve`), and the server's hooks run around the upstream.
   */
  async call(
    guard: ScopeGuard,
    context: ToolCallContext,
    target: GuardedTarget,
    upstream: (args: Record<string, unknown>) => Promise<Result>,
    approve: (asked: ApprovalPolicy) => Promise<void>,
  ): Promise<Result> {
    const decision = guard.policy.empty ? null : this.decide(guard, context, target);
    if (decision?.effect === 'deny') throw unknownTool(context.toolName);
    if (guard.limits.length > 0) await this.limit(guard, context.principal, target.id);
    if (decision?.effect === 'approve')
      await approve({
        policy: decision.policy!,
        message: decision.approval?.message ?? null,
        rememberSeconds: decision.approval?.rememberSeconds ?? 0,
      });
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
