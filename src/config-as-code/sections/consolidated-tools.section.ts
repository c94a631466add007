import { type EntityManager } from 'typeorm';
import { z } from 'zod';
import { TOOL_NAME_RULE } from '../../common/tool-name-rule';
import { ConsolidatedMember } from '../../consolidated-tools/consolidated-member.entity';
import { ConsolidatedTool } from '../../consolidated-tools/consolidated-tool.entity';
import { ConsolidatedToolException } from '../../consolidated-tools/consolidated-tool.exception';
import {
  checkedMembers,
  checkName,
  type MemberInput,
  replaceMembers,
  replaceServers,
} from '../../consolidated-tools/consolidated-tool.writes';
import {
  MEMBER_LIMIT,
  SERVER_LIMIT,
  TARGET_RULE,
} from '../../consolidated-tools/dto/consolidated-tool.dto';
import { DESCRIPTION_LIMIT } from '../../tools/tool-definition';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../common/canonical-json';
import { type FieldChange, listChange, scalarChanges } from '../config-change';
import { ConfigDocumentErrorCode, ConfigDocumentException } from '../config-document.exception';
import { type ApplyContext, defineSection, serverIdOf, toolIdOf } from './config-section';

const consolidatedItem = z
  .object({
    name: z.string().regex(TOOL_NAME_RULE).describe('The name clients see.'),
    description: z
      .string()
      .max(DESCRIPTION_LIMIT)
      .optional()
      .describe("What clients read; absent takes the first member's description."),
    members: z
      .array(
        z
          .object({
            target: z.string().regex(TARGET_RULE).describe('The label clients pass as `target`.'),
            tool: z.string().min(1).max(256).describe('The virtual name of the member tool.'),
          })
          .strict(),
      )
      .min(1)
      .max(MEMBER_LIMIT)
      .describe('The targets; their tools must have the same input schema.'),
    servers: z
      .array(z.string().min(1).max(200))
      .max(SERVER_LIMIT)
      .default([])
      .describe('Names of the virtual servers that include it.'),
  })
  .strict();

type ConsolidatedItem = z.output<typeof consolidatedItem>;

/** Consolidated tools by name: one tool with a `target` argument over the same tool on several gateways. */
export const consolidatedToolsSection = defineSection({
  key: 'consolidatedTools',
  description:
    'Consolidated tools, by name: the same tool on several gateways shown as one tool with a `target` argument.',
  item: consolidatedItem,

  async export({ em, names }) {
    const rows = await em.getRepository(ConsolidatedTool).find({ order: { name: 'ASC' } });
    const members = await membersOf(em);
    const servers: { id: string; name: string }[] = await em.query(
      `SELECT i.consolidated_tool_id AS id, s.name FROM server_consolidated_tool i
       JOIN server s ON s.id = i.server_id ORDER BY s.name`,
    );
    return rows.map((row) => ({
      name: row.name,
      description: row.description,
      members: (members.get(row.id) ?? []).map((member) => ({
        target: member.target,
        tool: names.name(member.tool!.gatewaySlug, member.tool!.originalName),
      })),
      servers: servers.filter((server) => server.id === row.id).map((server) => server.name),
    }));
  },

  async upsert(items, ctx) {
    for (const item of items) {
      try {
        await upsertConsolidated(ctx, item);
      } catch (error) {
        if (!(error instanceof ConsolidatedToolException)) throw error;
        throw new ConfigDocumentException(
          ConfigDocumentErrorCode.Invalid,
          `Consolidated tool '${item.name}': ${error.message}`,
        );
      }
    }
  },

  async prune(items, ctx) {
    const named = new Set(items.map((item) => item.name));
    for (const row of await ctx.em.getRepository(ConsolidatedTool).find()) {
      if (named.has(row.name)) continue;
      await ctx.em.getRepository(ConsolidatedTool).delete({ id: row.id });
      ctx.changed.everyServer = true;
      ctx.changes.push({ action: 'delete', kind: 'consolidated tool', name: row.name, fields: [] });
    }
  },
});

async function upsertConsolidated(ctx: ApplyContext, item: ConsolidatedItem): Promise<void> {
  const where = `Consolidated tool '${item.name}'`;
  const members: MemberInput[] = [];
  for (const member of item.members) {
    const toolId = await toolIdOf(ctx, member.tool, `${where}, target '${member.target}',`);
    // A member of a gateway this apply created waits for its first sync (a second pass).
    if (toolId === null) return;
    members.push({ target: member.target, toolId });
  }
  const serverIds: string[] = [];
  for (const server of item.servers) serverIds.push((await serverIdOf(ctx, server, where))!);
  const repository = ctx.em.getRepository(ConsolidatedTool);
  const stored = await repository.findOne({ where: { name: item.name } });
  const storedMembers = stored ? ((await membersOf(ctx.em, stored.id)).get(stored.id) ?? []) : [];
  const storedServers: { name: string }[] = stored
    ? await ctx.em.query(
        `SELECT s.name FROM server_consolidated_tool i JOIN server s ON s.id = i.server_id
         WHERE i.consolidated_tool_id = $1`,
        [stored.id],
      )
    : [];
  const wantedMembers = item.members.map((m) => `${m.target}=${m.tool}`);
  const membersChange =
    stored &&
    listChange(
      'members',
      storedMembers.map(
        (m) => `${m.target}=${ctx.names.name(m.tool!.gatewaySlug, m.tool!.originalName)}`,
      ),
      wantedMembers,
    );
  // Members as stored keep the stored shared schema: a drifted one stays withheld and reported
  // by sync, rather than failing every apply of an unchanged document.
  const checked = stored && !membersChange ? null : await checkedMembers(ctx.em, members);
  const description = item.description ?? stored?.description ?? checked!.tools[0]!.description;
  const inputSchema = checked ? checked.tools[0]!.inputSchema : stored!.inputSchema;
  const fields: FieldChange[] = stored
    ? [
        ...scalarChanges(
          { description: stored.description, schema: schemaDigest(stored.inputSchema) },
          { description, schema: schemaDigest(inputSchema) },
        ),
        membersChange,
        listChange(
          'servers',
          storedServers.map((row) => row.name),
          item.servers,
        ),
      ].filter((field): field is FieldChange => field !== null)
    : [
        { field: 'description', to: description },
        { field: 'members', added: [...wantedMembers].sort() },
        ...(item.servers.length > 0
          ? [{ field: 'servers', added: [...new Set(item.servers)].sort() }]
          : []),
      ];
  if (stored !== null && fields.length === 0) return;
  if (stored === null) await checkName(ctx.em, ctx.names, item.name, null);
  const saved = await repository.save(
    Object.assign(stored ?? repository.create({ name: item.name }), {
      description,
      inputSchema,
      updatedAt: new Date(),
    }),
  );
  await replaceMembers(ctx.em, saved.id, members);
  await replaceServers(ctx.em, saved.id, serverIds);
  ctx.changed.everyServer = true;
  ctx.changes.push({
    action: stored === null ? 'create' : 'update',
    kind: 'consolidated tool',
    name: item.name,
    fields,
  });
}

/**
 * The members of one consolidated tool, or of all, each with its tool, by their consolidated
 * tool's id and in target order.
 */
async function membersOf(
  em: EntityManager,
  consolidatedToolId?: string,
): Promise<Map<string, ConsolidatedMember[]>> {
  const rows = await em.getRepository(ConsolidatedMember).find({
    where: consolidatedToolId === undefined ? {} : { consolidatedToolId },
    relations: { tool: true },
  });
  const byId = new Map<string, ConsolidatedMember[]>();
  for (const row of rows.sort((a, b) => (a.target < b.target ? -1 : 1))) {
    const members = byId.get(row.consolidatedToolId) ?? [];
    members.push(row);
    byId.set(row.consolidatedToolId, members);
  }
  return byId;
}

/** A schema in the plan: its digest, as a schema printed whole would drown the plan. */
function schemaDigest(schema: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(schema)).digest('hex').slice(0, 12)}`;
}
