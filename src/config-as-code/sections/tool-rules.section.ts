import { z } from 'zod';
import { ROLES } from '../../auth/roles';
import { RULE_EFFECTS, ToolRule } from '../../policies/tool-rule.entity';
import { ConfigDocumentErrorCode, ConfigDocumentException } from '../config-document.exception';
import {
  type ApplyContext,
  defineSection,
  markServerChanged,
  serverIdOf,
  teamIdOf,
  toolIdOf,
} from './config-section';

const toolRuleItem = z
  .object({
    effect: z
      .enum(RULE_EFFECTS)
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

interface StoredRule {
  id: string;
  effect: ToolRuleItem['effect'];
  tool: string;
  server: string | null;
  serverId: string | null;
  team: string | null;
  role: ToolRuleItem['role'];
}

/**
 * Allow and deny rules of tools. A rule is all of what it says (effect, tool, server, team,
 * role), so it is known by all of it: changing any part is a new rule and, with prune, the old
 * one's deletion.
 */
export const toolRulesSection = defineSection({
  key: 'toolRules',
  description: 'Allow and deny rules of tools, each known by all of its fields.',
  item: toolRuleItem,

  async export(ctx) {
    return (await storedRules(ctx)).map((rule) => ({
      effect: rule.effect,
      tool: rule.tool,
      ...(rule.server === null ? {} : { server: rule.server }),
      ...(rule.team === null ? {} : { team: rule.team }),
      ...(rule.role === null ? {} : { role: rule.role }),
    }));
  },

  async upsert(items, ctx) {
    const stored = new Set((await storedRules(ctx)).map(keyOf));
    const seen = new Set<string>();
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
      if (toolId === null || stored.has(key)) continue;
      await ctx.em
        .getRepository(ToolRule)
        .save({ effect: item.effect, toolId, serverId, teamId, role: item.role });
      markServerChanged(ctx, serverId);
      ctx.changes.push({ action: 'create', kind: 'tool rule', name: key, fields: [] });
    }
  },

  async prune(items, ctx) {
    const named = new Set(items.map(keyOf));
    for (const rule of await storedRules(ctx)) {
      if (named.has(keyOf(rule))) continue;
      await ctx.em.getRepository(ToolRule).delete({ id: rule.id });
      markServerChanged(ctx, rule.serverId);
      ctx.changes.push({ action: 'delete', kind: 'tool rule', name: keyOf(rule), fields: [] });
    }
  },
});

/** How the plan names a rule: `deny github-delete_repo on "Support" to team "Contractors"`. */
function keyOf(rule: Pick<ToolRuleItem, 'effect' | 'tool' | 'server' | 'team' | 'role'>): string {
  const who = [
    ...(rule.team === null ? [] : [`team "${rule.team}"`]),
    ...(rule.role === null ? [] : [`role ${rule.role}`]),
  ];
  return `${rule.effect} ${rule.tool} on ${rule.server === null ? 'every endpoint' : `"${rule.server}"`} to ${who.length ? who.join(' with ') : 'everyone'}`;
}

async function storedRules(ctx: Pick<ApplyContext, 'em' | 'names'>): Promise<StoredRule[]> {
  return ctx.em.query(
    `SELECT r.id, r.effect, r.role, r.server_id AS "serverId", s.name AS server, m.name AS team,
            ${ctx.names.expression('t')} AS tool
     FROM tool_rule r JOIN tool t ON t.id = r.tool_id
     LEFT JOIN server s ON s.id = r.server_id LEFT JOIN team m ON m.id = r.team_id
     ORDER BY tool, s.name NULLS FIRST, m.name NULLS FIRST, r.role NULLS FIRST, r.effect`,
  );
}
