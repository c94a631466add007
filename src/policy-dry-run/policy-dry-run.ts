import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { type Principal } from '../auth/principal';
import { PrincipalResolver } from '../auth/principal-resolver';
import { UserDirectory } from '../auth/user-directory';
import { Directories } from '../mcp/directory/directories.service';
import { scopeOf } from '../mcp/protocol/mcp-scope';
import {
  type DryRunDecision,
  type PolicyDryRunDto,
  type PolicyDryRunResultDto,
  type PolicyDryRunToolDto,
} from './dto/policy-dry-run.dto';
import { draftOf, PoliciesService } from '../policies/policies.service';
import { type PolicyDefinition, PolicyInputTooLarge, type PolicySet } from '../policies/policy-set';
import { type PolicyTool } from '../policies/policy-tool';
import { PolicyErrorCode, PolicyException } from '../policies/policy.exception';
import { ScopePolicies } from '../policies/scope-policies';
import { ToolErrorCode, ToolException } from '../tools/tool.exception';

/**
 * "What would this user see and be allowed to call": the tools of one scope judged for a user or
 * a described principal, by the stored policies or by a proposed set, before anything is saved.
 * It judges the scope's own directory (its names, overrides and members), as a client would meet
 * it, and changes nothing.
 */
@Injectable()
export class PolicyDryRun {
  constructor(
    private readonly directories: Directories,
    private readonly scopes: ScopePolicies,
    private readonly policies: PoliciesService,
    private readonly users: UserDirectory,
    private readonly resolver: PrincipalResolver,
  ) {}

  async run(dto: PolicyDryRunDto): Promise<PolicyDryRunResultDto> {
    const principal = await this.principalOf(dto);
    const serverId = dto.serverId ?? null;
    const directory = await this.directories.get(scopeOf(serverId));
    if (!directory)
      throw new PolicyException(
        PolicyErrorCode.UnknownTarget,
        `Server ${serverId} does not exist or is disabled.`,
      );
    const teamNames = await this.scopes.teamNames();
    const set = dto.policies
      ? await this.proposed(dto.policies.map(draftOf), serverId, teamNames)
      : directory.guard.policy;
    const visible = directory.tools.visibleTo(set, principal);
    let tools = directory.tools.tools.filter(
      (tool) => directory.tools.byName.get(tool.name) === tool,
    );
    if (dto.tools) {
      const wanted = new Set(dto.tools);
      tools = tools.filter((tool) => wanted.has(tool.name));
      const missing = dto.tools.filter((name) => !directory.tools.byName.has(name));
      if (missing.length > 0)
        throw new PolicyException(
          PolicyErrorCode.UnknownTarget,
          `This scope has no tool named ${missing.map((name) => `'${name}'`).join(', ')}.`,
        );
    }
    const now = new Date();
    // A consolidated tool is judged per target, as its member tools decide its targets.
    const rows = tools.flatMap((tool) => {
      if (!tool.consolidated)
        return [{ name: tool.name, judged: tool, listed: visible.byName.get(tool.name) === tool }];
      const reachable = visible.byName.get(tool.name)?.consolidated?.targets ?? [];
      return tool.consolidated.targets.map(({ target, tool: member }) => ({
        name: `${tool.name} (target ${target})`,
        judged: member,
        listed: reachable.some((each) => each.target === target),
      }));
    });
    const judged: PolicyDryRunToolDto[] = rows.map(({ name, judged: tool, listed }) => {
      const { decision, policy } = judge(set, principal, tool.policy, dto.arguments, now);
      return {
        name,
        gatewaySlug: tool.gatewaySlug,
        listed,
        decision,
        policy: policy && { id: dto.policies ? null : policy.id, name: policy.name },
      };
    });
    return {
      principal: {
        subject: principal.subject,
        name: principal.name,
        role: principal.role,
        teams: principal.teamIds.map((id) => teamNames.get(id) ?? id),
      },
      serverId,
      proposed: dto.policies !== undefined,
      tools: judged,
      summary: {
        tools: judged.length,
        visible: judged.filter((tool) => tool.listed).length,
        hidden: judged.filter((tool) => !tool.listed).length,
        needingApproval: judged.filter((tool) => tool.decision === 'approve').length,
        callDependent: judged.filter((tool) => tool.decision === 'call-dependent').length,
      },
    };
  }

  private async proposed(
    drafts: ReturnType<typeof draftOf>[],
    serverId: string | null,
    teamNames: ReadonlyMap<string, string>,
  ): Promise<PolicySet> {
    const definitions: PolicyDefinition[] = [];
    for (const [index, draft] of drafts.entries()) {
      const checked = await this.policies.check(draft);
      if (!checked.enabled || (checked.serverId !== null && checked.serverId !== serverId))
        continue;
      definitions.push({ ...checked, id: `proposed-${index}` });
    }
    return this.scopes.compile(definitions, teamNames);
  }

  private async principalOf(dto: PolicyDryRunDto): Promise<Principal> {
    if ((dto.user === undefined) === (dto.principal === undefined))
      throw new PolicyException(
        PolicyErrorCode.UnknownTarget,
        'A dry run judges either a `user` or a `principal`: give one of them.',
      );
    if (dto.principal) {
      const described = dto.principal;
      return {
        subject: described.subject ?? 'dry-run',
        name: described.name ?? 'dry-run',
        userId: described.user ?? null,
        role: described.role,
        teamIds: described.teamIds ?? [],
        serverIds: null,
        audience: null,
        tokenId: described.token ?? null,
        source: described.source ?? 'session',
      };
    }
    return this.principalOfUser(dto.user!);
  }

  /**
   * A user's principal exactly as their own login token presents it to an MCP endpoint, with
   * their role and teams now; the playground calls tools as it.
   */
  async principalOfUser(named: string): Promise<Principal> {
    const id = isUUID(named) ? named : await this.users.idOf(named);
    const user = id === null ? null : await this.users.load(id);
    if (!user)
      throw new PolicyException(PolicyErrorCode.UnknownTarget, `No user is named '${named}'.`);
    if (user.disabled)
      throw new PolicyException(
        PolicyErrorCode.UnknownTarget,
        `User '${user.username}' is disabled: they may not sign in, so they see nothing.`,
      );
    // Exactly the principal of the user's own login token, as their MCP client presents it.
    return this.resolver.ofUser(user.id, 'login-token');
  }
}

/**
 * What a call decides, as `tools/call` decides it: with the arguments given, the policies
 * evaluated as for a call now; without them, what the tool's listing already decides.
 */
function judge(
  set: PolicySet,
  principal: Principal,
  tool: PolicyTool,
  args: Record<string, unknown> | undefined,
  now: Date,
): { decision: DryRunDecision; policy: { id: string; name: string } | null } {
  if (args === undefined) {
    const outcome = set.outcome(principal, tool);
    if (outcome.decision)
      return { decision: outcome.decision.effect, policy: outcome.decision.policy };
    return { decision: 'call-dependent', policy: outcome.dependsOn };
  }
  try {
    const decision = set.decide(principal, tool, args, now);
    return { decision: decision.effect, policy: decision.policy };
  } catch (error) {
    if (error instanceof PolicyInputTooLarge)
      throw new ToolException(ToolErrorCode.ArgumentsTooLarge, error.message);
    throw error;
  }
}
