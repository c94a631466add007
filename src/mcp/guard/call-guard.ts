import { Injectable, Logger } from '@nestjs/common';
import { type CallToolResult, ProtocolErrorCode, type Result } from '@modelcontextprotocol/server';
import { type ApprovalPolicy } from '../../approvals/approval-record';
import { type Principal } from '../../auth/principal';
import {
  type PolicyDecision,
  PolicyInputTooLarge,
  type PolicySet,
  VIEW_MEMORY,
  VIEW_TOOLS,
} from '../../policies/policy-set';
import { type PolicyTool } from '../../policies/policy-tool';
import { ScopePolicies } from '../../policies/scope-policies';
import {
  HookRefusal,
  type ToolCallContext,
  type ToolCallHook,
} from '../../policies/hooks/tool-call-hook';
import { RateLimitMetrics } from '../../rate-limits/rate-limit-metrics';
import { RateLimitErrorCode, RateLimitException } from '../../rate-limits/rate-limit.exception';
import { RateLimiter } from '../../rate-limits/rate-limiter.service';
import { type ScopeDirectory, type ScopeGuard } from '../directory/scope-directory';
import { type DirectoryTool } from '../directory/directory-tool';
import { type ToolDirectory } from '../directory/tool-directory';
import {
  invalidParams,
  rateLimited,
  RpcError,
  TOOL_CALL_REFUSED,
  toolCallRefused,
  unknownTool,
} from '../protocol/mcp-errors';
import { errorMessage } from '../../common/error-message';
import { Memo } from '../../common/memo';

/** How many times a call's approval is asked again when policies change while it is asked. */
const APPROVAL_ROUNDS = 3;

/** Who asks a person for a call's approval, for the guard. */
export interface Approver {
  /**
   * Resolves once a person said yes to this call under `asked`, given by the set `version`: true
   * when they were asked just now, false when an earlier yes holds (remembered, or given in an
   * earlier round of this call).
   */
  obtain(asked: ApprovalPolicy, version: string): Promise<boolean>;
  /**
   * The call is denied, after all, though a person may have said yes to it (a policy saved while
   * they were asked): what the audit entry says of their yes, if there was one.
   */
  overruled(by: { id: string; name: string } | null): void;
}

/** A call's context for the guard: `tool`, called as `toolName` in the scope by `principal`. */
export function callContext(
  scope: ScopeDirectory,
  tool: { id: string; gatewaySlug: string },
  toolName: string,
  principal: Principal,
  args: Record<string, unknown>,
): ToolCallContext {
  return {
    serverId: scope.server?.id ?? null,
    toolName,
    toolId: tool.id,
    gatewaySlug: tool.gatewaySlug,
    principal,
    arguments: args,
  };
}

/**
 * Policies, rate limits and hooks on the MCP call path. Each costs nothing where the scope has
 * none: the policies' views are memoised per directory and principal key, and a call without an
 * applicable limit or a hook goes straight to the upstream.
 */
@Injectable()
export class CallGuard {
  private readonly logger = new Logger(CallGuard.name);
  private readonly views = new WeakMap<ToolDirectory, Memo<string, ToolDirectory>>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly metrics: RateLimitMetrics,
    private readonly policies: ScopePolicies,
  ) {}

  /** The part of the scope's tools this principal may see and call. */
  visible(directory: ScopeDirectory, principal: Principal): ToolDirectory {
    const { policy } = directory.guard;
    if (policy.empty) return directory.tools;
    let views = this.views.get(directory.tools);
    if (!views) {
      // As many views as fit VIEW_TOOLS tools: each holds its own maps and search catalogue.
      const fit = Math.floor(VIEW_TOOLS / Math.max(1, directory.tools.tools.length));
      views = new Memo(Math.max(1, Math.min(VIEW_MEMORY, fit)));
      this.views.set(directory.tools, views);
    }
    const key = policy.keyOf(principal);
    return views.get(key) ?? views.remember(key, directory.tools.visibleTo(policy, principal, key));
  }

  /**
   * What the policies decide of this call: a map lookup when the tool's listing already decided
   * it, else its call-dependent policies evaluated with the arguments and the time.
   */
  decide(policy: PolicySet, context: ToolCallContext, tool: PolicyTool): PolicyDecision {
    try {
      return policy.decide(context.principal, tool, context.arguments, new Date());
    } catch (error) {
      if (error instanceof PolicyInputTooLarge) throw invalidParams(error.message);
      throw error;
    }
  }

  /**
   * Makes the call through the guard: a denied tool is as unknown as a missing one, a call past a
   * rate limit is refused with when to retry, a call a policy holds for approval waits for a
   * person's yes, and the server's hooks run around the upstream. Policies judge `tool`, the
   * same record whichever name the client called it by.
   */
  async call(
    guard: ScopeGuard,
    context: ToolCallContext,
    tool: PolicyTool,
    upstream: (args: Record<string, unknown>) => Promise<Result>,
    approver: Approver,
  ): Promise<Result> {
    const decision = guard.policy.empty ? null : this.decide(guard.policy, context, tool);
    if (decision?.effect === 'deny') {
      approver.overruled(decision.policy);
      throw unknownTool(context.toolName);
    }
    if (guard.limits.length > 0) await this.limit(guard, context.principal, tool.id);
    if (decision?.effect === 'approve')
      await this.approved(guard.policy, decision, context, tool, approver);
    if (guard.hooks.length === 0) return upstream(context.arguments);
    for (const hook of guard.hooks) {
      if (hook.before) await this.step(hook, () => hook.before!(context));
    }
    return this.after(guard, context, await upstream(context.arguments));
  }

  /**
   * The server's `after` hooks, in order, on a tool's result: a call's, or one its task delivers
   * later. The upstream's result never goes out unchecked (a hook that fails refuses it).
   */
  async after(guard: ScopeGuard, context: ToolCallContext, result: Result): Promise<Result> {
    let current = result as CallToolResult;
    for (const hook of guard.hooks) {
      if (hook.after) {
        const given = current;
        current = await this.step(hook, () => hook.after!(context, given));
      }
    }
    return current;
  }

  /**
   * Asks for the approval `decision` needs, then judges the call again by the policies in force
   * now, read from the database: a policy saved while the person was asked decides (a deny wins
   * over the yes), and an approval another policy now needs is asked for in turn.
   */
  private async approved(
    policy: PolicySet,
    decision: PolicyDecision,
    context: ToolCallContext,
    tool: PolicyTool,
    approver: Approver,
  ): Promise<void> {
    for (let round = 0; round < APPROVAL_ROUNDS; round += 1) {
      if (!(await approver.obtain(approvalAsked(decision), policy.version))) return;
      const current = await this.policies.load(context.serverId);
      if (current.version === policy.version) return;
      const now = current.empty ? null : this.decide(current, context, tool);
      if (now?.effect === 'deny') {
        approver.overruled(now.policy);
        throw unknownTool(context.toolName);
      }
      if (now?.effect !== 'approve' || sameApproval(now, decision)) return;
      policy = current;
      decision = now;
    }
    throw new RpcError(
      TOOL_CALL_REFUSED,
      `The policies that judge '${context.toolName}' kept changing while its approval was asked; call it again.`,
    );
  }

  /**
   * Counts a call against the scope's rate limits, refusing one past them (-32014, with when to
   * retry); `toolId` null is a call Portico answers itself, counted by the limits of all tools.
   */
  async limit(guard: ScopeGuard, principal: Principal, toolId: string | null): Promise<void> {
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
      const message = errorMessage(error);
      this.logger.warn(`Hook '${hook.name}' failed: ${message}`);
      throw toolCallRefused(hook.name, message, false);
    }
  }
}

function approvalAsked(decision: PolicyDecision): ApprovalPolicy {
  return {
    policy: decision.policy!,
    revision: decision.revision ?? '',
    message: decision.approval?.message ?? null,
    rememberSeconds: decision.approval?.rememberSeconds ?? 0,
  };
}

/** The same policy asks the same question: the yes given to it stands. */
function sameApproval(a: PolicyDecision, b: PolicyDecision): boolean {
  return (
    a.policy?.id === b.policy?.id &&
    JSON.stringify(a.approval) === JSON.stringify(b.approval) &&
    a.policy?.name === b.policy?.name
  );
}

/**
 * What a call by `name` reaches in `tools`: the tool listed under it; but a name shaped like an
 * app's hashed backend name (`<toolHash>_<originalName>`) goes first to the app's tool it names
 * (`app`, null where it names none), so that another upstream's tool listed under such a name (on
 * a server of original names) takes no app's calls. A call and its task's later steps resolve
 * names here. (It lives on the call path's guard, not the directory, so that a call whose name is
 * listed runs no function of the directory's.)
 */
export async function reachedTool<T>(
  tools: ToolDirectory,
  name: string,
  app: () => Promise<T | null>,
): Promise<DirectoryTool | T | null> {
  const listed = tools.byName.get(name);
  if (listed && !tools.hashShaped.has(name)) return listed;
  return (await app()) ?? listed ?? null;
}
