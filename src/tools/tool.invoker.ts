import { Injectable } from '@nestjs/common';
import { type CallToolResult } from '@modelcontextprotocol/server';
import { DataSource } from 'typeorm';
import { type TeamScope } from '../auth/team-scope';
import { GatewayErrorCode, GatewayException } from '../gateways/gateway.exception';
import { sharedAffinity, UpstreamClient } from '../upstream/upstream-client';
import {
  answeredBadly,
  UpstreamAuthorizationRequired,
  upstreamFailure,
  UpstreamRefused,
} from '../upstream/upstream-error';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { Tool } from './tool.entity';
import { ToolErrorCode, ToolException } from './tool.exception';
import { type Principal } from '../auth/principal';
import { exchangeSubjectOf } from '../auth/principal-resolver';
import { PolicyInputTooLarge } from '../policies/policy-set';
import { policyToolOf } from '../policies/policy-tool';
import { ScopePolicies } from '../policies/scope-policies';
import { RateLimitMetrics } from '../rate-limits/rate-limit-metrics';
import { RateLimitErrorCode, RateLimitException } from '../rate-limits/rate-limit.exception';
import { limitRules, RateLimiter } from '../rate-limits/rate-limiter.service';

/**
 * Calls a stored tool on its own upstream under its original name, over the upstream client's
 * shared connections.
 * The result is the upstream's, `isError` included: a tool that fails is still an answer.
 */
@Injectable()
export class ToolInvoker {
  constructor(
    private readonly dataSource: DataSource,
    private readonly client: UpstreamClient,
    private readonly names: ToolNameQuery,
    private readonly policies: ScopePolicies,
    private readonly limiter: RateLimiter,
    private readonly limitMetrics: RateLimitMetrics,
  ) {}

  /** The global rate limits that count this call; 429 past any of them. */
  private async limit(principal: Principal, toolId: string): Promise<void> {
    // Limits on other tools are among them: the limiter counts only those of this one.
    const limits = await limitRules(this.dataSource, null);
    if (limits.length === 0) return;
    try {
      await this.limiter.consume(limits, principal, toolId);
    } catch (error) {
      if (error instanceof RateLimitException && error.code === RateLimitErrorCode.Exceeded)
        this.limitMetrics.rejections.inc({ surface: 'rest' });
      throw error;
    }
  }

  /**
   * What the global policies decide of this call: deny is a 404, as for a missing tool; approve a
   * 403, as no one can be asked over REST.
   */
  private async judge(
    principal: Principal,
    tool: Tool,
    name: string,
    args: Record<string, unknown>,
  ): Promise<void> {
    const policies = await this.policies.everywhere();
    if (policies.empty) return;
    let decision;
    try {
      decision = policies.decide(
        principal,
        policyToolOf({ ...tool, pinnedHash: tool.pin.pinnedHash }, name, name),
        args,
        new Date(),
      );
    } catch (error) {
      if (error instanceof PolicyInputTooLarge)
        throw new ToolException(ToolErrorCode.ArgumentsTooLarge, error.message);
      throw error;
    }
    if (decision.effect === 'deny')
      throw new ToolException(ToolErrorCode.NotFound, `Tool ${tool.id} does not exist.`);
    if (decision.effect === 'approve')
      throw new ToolException(
        ToolErrorCode.ApprovalRequired,
        `Policy '${decision.policy?.name ?? ''}' needs a person's approval for a call of '${name}'; call it through an MCP client that can be asked (elicitation).`,
        { policy: decision.policy },
      );
  }

  /**
   * Calls the tool if this scope sees its gateway and the global policies let the principal use
   * it (404 otherwise, as for a missing tool), within the global rate limits (429).
   */
  async invoke(
    toolId: string,
    args: Record<string, unknown>,
    scope: TeamScope,
    principal: Principal | null,
  ): Promise<CallToolResult> {
    const tool = await this.dataSource
      .getRepository(Tool)
      .findOne({ where: { id: toolId }, relations: { gateway: true } });
    if (!tool?.gateway || !scope.canSee(tool.gateway.teamId))
      throw new ToolException(ToolErrorCode.NotFound, `Tool ${toolId} does not exist.`);
    const { gateway } = tool;
    const name = this.names.name(tool.gatewaySlug, tool.originalName);
    if (principal !== null) await this.judge(principal, tool, name, args);
    if (!gateway.enabled) {
      throw new GatewayException(
        GatewayErrorCode.Disabled,
        `Gateway '${gateway.name}' is deactivated, so '${name}' cannot be called.`,
      );
    }
    if (!tool.enabled)
      throw new ToolException(ToolErrorCode.Disabled, `Tool '${name}' is disabled.`);
    if (tool.pin.quarantine)
      throw new ToolException(
        ToolErrorCode.Quarantined,
        `Tool '${name}' is held back until an operator approves its definition.`,
      );
    if (principal !== null) await this.limit(principal, toolId);
    try {
      // A per-user OAuth upstream is called with the invoking user's own token, a token-exchange
      // one with a token exchanged for the caller's.
      const affinity = sharedAffinity(
        {},
        {
          userId: principal?.userId ?? null,
          subject: principal ? exchangeSubjectOf(principal) : null,
        },
      );
      return await this.client.call(gateway.id, affinity, (connection) =>
        connection.request<CallToolResult>('tools/call', {
          name: tool.originalName,
          arguments: args,
        }),
      );
    } catch (error) {
      const failure = upstreamFailure(error, this.client.timeoutMs);
      // Portico's own failure is not the upstream's: a logged 500, not a 502 that blames it.
      if (failure.kind === 'internal') throw error;
      const connect =
        error instanceof UpstreamAuthorizationRequired && error.connectUrl
          ? ` Connect your account at ${error.connectUrl}`
          : '';
      const message = `Calling '${tool.originalName}' on gateway '${gateway.name}' failed: ${failure.message}.${connect}`;
      // Not sent at all: the client may try again once the upstream is tried again.
      if (error instanceof UpstreamRefused)
        throw new ToolException(ToolErrorCode.UpstreamRefused, message, {
          retryAfterSeconds: error.retryAfterSeconds(),
        });
      // An upstream's own 429 or 503 that said when to try again: passed on as Retry-After.
      throw new ToolException(
        answeredBadly(failure) ? ToolErrorCode.UpstreamFailing : ToolErrorCode.UpstreamUnavailable,
        message,
        failure.retryAt ? { retryAfterSeconds: failure.retryAfterSeconds() } : undefined,
      );
    }
  }
}
