import { z } from 'zod';
import { ROLES } from '../../common/roles';
import { type LegacyToolRule, policiesOfToolRules } from '../../policies/legacy-tool-rules';
import { ConfigDocumentErrorCode, ConfigDocumentException } from '../config-document.exception';
import { defineSection, serverIdOf, teamIdOf, toolIdOf } from './config-section';
import { prunePolicies, upsertPolicy } from './policies.section';

const toolRuleItem = z
  .object({
    effect: z
      .enum(['allow', 'deny'])
      .describe(
        '`deny` hides the tool from matching principals and refuses their calls; `allow` makes it visible only to principals matching one of its allow rules. A matching deny wins.',
      ),
    tool: z.string().min(1).max(4096).describe('Virtual name of the tool.'),
    server: z
      .string()
      .nullable()
      .default(null)
      .describe('Name of the virtual server it holds on; null or absent: everywhere.'),
    team: z
      .string()
      .nullable()
      .default(null)
      .describe('Matches members of this team; null or absent: any team.'),
    role: z
      .enum(ROLES)
      .nullable()
      .default(null)
      .describe('Matches principals with exactly this role; null or absent: any role.'),
  })
  .strict();

type ToolRuleItem = z.output<typeof toolRuleItem>;

/** The prefix of the policies tool rules become. */
const CONVERTED = 'rule-';

/**
 * Tool allow/deny rules, as documents written before policies carry them. Applied as the policies
 * they mean (the conversion of the migration that replaced them, legacy-tool-rules.ts), with a
 * warning; never exported: an export writes the policies. With prune, converted policies
 * (`rule-…`) the document no longer yields are deleted.
 */
export const toolRulesSection = defineSection({
  key: 'toolRules',
  description:
    'Deprecated: tool allow/deny rules, applied as the `policies` they mean (named `rule-…`). Write `policies` instead.',
  legacy: true,
  item: toolRuleItem,

  async export() {
    return [];
  },

  async upsert(items, ctx) {
    const seen = new Set<string>();
    const rules: LegacyToolRule[] = [];
    const serverNames = new Map<string, string>();
    for (const item of items) {
      const key = keyOf(item);
      if (seen.has(key))
        throw new ConfigDocumentException(
          ConfigDocumentErrorCode.Invalid,
          `The tool rule ${key} is named twice.`,
        );
      seen.add(key);
      const where = `Tool rule ${key}`;
      const teamId = teamIdOf(ctx, item.team, where);
      const serverId = await serverIdOf(ctx, item.server, where);
      const toolId = await toolIdOf(ctx, item.tool, where);
      if (toolId === null) continue;
      if (serverId !== null && item.server !== null) serverNames.set(serverId, item.server);
      rules.push({
        toolId,
        toolName: item.tool,
        serverId,
        effect: item.effect,
        teamId,
        role: item.role,
      });
    }
    const teamNames = new Map([...ctx.teamIds].map(([name, id]) => [id, name]));
    const converted = policiesOfToolRules(
      rules,
      { team: (id) => teamNames.get(id) ?? id, server: (id) => serverNames.get(id) ?? id },
      new Set(ctx.policyNames),
    );
    if (items.length > 0)
      ctx.warnings.push(
        `The toolRules section is deprecated: its ${items.length} rule(s) were applied as ${converted.length} policies named '${CONVERTED}…'. Write them under 'policies' (an export does).`,
      );
    for (const policy of converted) {
      ctx.policyNames.add(policy.name);
      await upsertPolicy(ctx, {
        name: policy.name,
        description: policy.description,
        expression: policy.expression,
        effect: policy.effect,
        priority: policy.priority,
        server: policy.serverId === null ? null : (serverNames.get(policy.serverId) ?? null),
        enabled: true,
        approval: null,
      });
    }
  },

  async prune(_items, ctx) {
    await prunePolicies(ctx, (name) => name.startsWith(CONVERTED));
  },
});

/** How messages name a rule: `deny github-delete_repo on "Support" to team "Contractors"`. */
function keyOf(rule: ToolRuleItem): string {
  const who = [
    ...(rule.team === null ? [] : [`team "${rule.team}"`]),
    ...(rule.role === null ? [] : [`role ${rule.role}`]),
  ];
  return `${rule.effect} ${rule.tool} on ${rule.server === null ? 'every endpoint' : `"${rule.server}"`} to ${who.length ? who.join(' with ') : 'everyone'}`;
}
