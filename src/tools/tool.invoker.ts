import { Injectable } from '@nestjs/common';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import { type TeamScope } from '../auth/team-scope';
import { GatewayErrorCode, GatewayException } from '../gateways/gateway.exception';
import { UpstreamConnector } from '../upstream/upstream-connector.service';
import { UpstreamAuthorizationRequired, upstreamFailure } from '../upstream/upstream-error';
import { UpstreamTargets } from '../upstream/upstream-targets.service';
import { ToolNameQuery } from './tool-name.query';
import { Tool } from './tool.entity';
import { ToolErrorCode, ToolException } from './tool.exception';

/**
 * Calls a stored tool on its own upstream under its original name, over a short-lived session.
 * The result is the upstream's, `isError` included: a tool that fails is still an answer.
 */
@Injectable()
export class ToolInvoker {
  constructor(
    private readonly dataSource: DataSource,
    private readonly connector: UpstreamConnector,
    private readonly targets: UpstreamTargets,
    private readonly names: ToolNameQuery,
  ) {}

  /** Calls the tool if this scope sees its gateway (404 otherwise, as for a missing tool). */
  async invoke(
    toolId: string,
    args: Record<string, unknown>,
    scope: TeamScope,
    /** Who invokes it: a per-user OAuth upstream is called with this user's own token. */
    actingFor: { userId: string | null },
  ): Promise<CallToolResult> {
    const tool = await this.dataSource
      .getRepository(Tool)
      .findOne({ where: { id: toolId }, relations: { gateway: true } });
    if (!tool?.gateway || !scope.canSee(tool.gateway.teamId))
      throw new ToolException(ToolErrorCode.NotFound, `Tool ${toolId} does not exist.`);
    const { gateway } = tool;
    const name = this.names.name(tool.gatewaySlug, tool.originalName);
    if (!gateway.enabled) {
      throw new GatewayException(
        GatewayErrorCode.Disabled,
        `Gateway '${gateway.name}' is deactivated, so '${name}' cannot be called.`,
      );
    }
    if (!tool.enabled)
      throw new ToolException(ToolErrorCode.Disabled, `Tool '${name}' is disabled.`);
    try {
      const connection = await this.connector.open(this.targets.targetOf(gateway), {
        listen: false,
        actingFor,
      });
      try {
        return await connection.request<CallToolResult>('tools/call', {
          name: tool.originalName,
          arguments: args,
        });
      } finally {
        await connection.close();
      }
    } catch (error) {
      const connect =
        error instanceof UpstreamAuthorizationRequired && error.connectUrl
          ? ` Connect your account at ${error.connectUrl}`
          : '';
      throw new ToolException(
        ToolErrorCode.UpstreamUnavailable,
        `Calling '${tool.originalName}' on gateway '${gateway.name}' failed: ${upstreamFailure(error, this.connector.timeoutMs).message}.${connect}`,
      );
    }
  }
}
