import { z } from 'zod';
import { assertNoClash } from '../../servers/listed-names.query';
import { ServerToolOverride } from '../../servers/server-tool-override.entity';
import { type Server } from '../../servers/server.entity';
import { ServerErrorCode, ServerException } from '../../servers/server.exception';
import { DESCRIPTION_LIMIT, TITLE_LIMIT } from '../../tools/tool-definition';
import { TOOL_NAME_RULE } from '../../common/tool-name-rule';
import { type JsonObject } from '../../common/json-value';
import { canonicalJson } from '../../common/canonical-json';
import { type FieldChange } from '../config-change';
import { ConfigDocumentErrorCode, ConfigDocumentException } from '../config-document.exception';
import {
  type ApplyContext,
  type ExportContext,
  unknownReference,
  waitsForFirstSync,
} from './config-section';

/** How a server shows one member tool, as PUT /api/v1/servers/:id/tools/:toolId/override takes it. */
const overrideItem = z
  .object({
    name: z
      .string()
      .regex(TOOL_NAME_RULE)
      .nullable()
      .default(null)
      .describe('The name the server lists and routes; it must not clash with another member.'),
    title: z.string().min(1).max(TITLE_LIMIT).nullable().default(null),
    description: z.string().max(DESCRIPTION_LIMIT).nullable().default(null),
    annotations: z
      .object({
        title: z.string().max(TITLE_LIMIT).optional(),
        readOnlyHint: z.boolean().optional(),
        destructiveHint: z.boolean().optional(),
        idempotentHint: z.boolean().optional(),
        openWorldHint: z.boolean().optional(),
      })
      .strict()
      .nullable()
      .default(null)
      .describe('Merged over the upstream annotations, key by key.'),
  })
  .strict();

export const toolOverrides = z
  .record(z.string().min(1).max(4096), overrideItem)
  .default({})
  .describe(
    'How the server shows member tools, keyed by their virtual name: name, title, description, annotations; absent or null keeps the upstream’s.',
  );

type OverrideItem = z.output<typeof overrideItem>;
type Overrides = Record<string, OverrideItem>;

/** An override as the document writes it: only what it sets. */
function written(override: OverrideItem): Partial<OverrideItem> {
  return Object.fromEntries(Object.entries(override).filter(([, value]) => value !== null));
}

/** Each server's overrides, by the virtual name of their tool, as the document writes them. */
export async function overridesOf(
  ctx: Pick<ExportContext, 'em' | 'names'>,
  serverIds: string[],
): Promise<Map<string, Record<string, Partial<OverrideItem>>>> {
  const result = new Map<string, Record<string, Partial<OverrideItem>>>();
  if (serverIds.length === 0) return result;
  const rows: (OverrideItem & { serverId: string; ref: string })[] = await ctx.em.query(
    `SELECT o.server_id AS "serverId", ${ctx.names.expression('t')} AS ref,
            o.name, o.title, o.description, o.annotations
     FROM server_tool_override o JOIN tool t ON t.id = o.tool_id
     WHERE o.server_id = ANY($1::uuid[]) ORDER BY 2`,
    [serverIds],
  );
  for (const { serverId, ref, ...override } of rows) {
    const own = result.get(serverId) ?? {};
    own[ref] = written(override);
    result.set(serverId, own);
  }
  return result;
}

/**
 * Makes the server's overrides those of the document, keyed by member tools' virtual names, and
 * refuses names that would make two members show under one (the REST API's 409 rule). Returns
 * the plan's lines: `overrides.<tool>` from what was set to what is.
 */
export async function applyOverrides(
  server: Server,
  wanted: Overrides,
  memberToolIds: string[],
  ctx: ApplyContext,
): Promise<FieldChange[]> {
  const where = `Server '${server.name}'`;
  const rows: { id: string; ref: string }[] = await ctx.em.query(
    `SELECT m.id, ${ctx.names.expression('m')} AS ref
     FROM tool m WHERE m.id = ANY($1::uuid[])`,
    [memberToolIds],
  );
  const members = new Map(rows.map((row) => [row.ref, row.id]));
  const stored = (await overridesOf(ctx, [server.id])).get(server.id) ?? {};
  const repository = ctx.em.getRepository(ServerToolOverride);
  const changes: FieldChange[] = [];
  for (const [ref, override] of Object.entries(wanted)) {
    const toolId = members.get(ref);
    if (toolId === undefined) {
      const what = `${where}: the override of '${ref}'`;
      if (waitsForFirstSync(ctx, ref, ctx.names.separator, what)) continue;
      throw unknownReference(`${where} overrides '${ref}', which is not among its tools`);
    }
    const to = written(override);
    if (canonicalJson(stored[ref]) === canonicalJson(to)) continue;
    await repository.save(
      repository.create({
        serverId: server.id,
        toolId,
        ...override,
        annotations: override.annotations as JsonObject | null,
      }),
    );
    changes.push({
      field: `overrides.${ref}`,
      ...(ref in stored ? { from: stored[ref] } : {}),
      to,
    });
  }
  for (const [ref, override] of Object.entries(stored)) {
    if (ref in wanted) continue;
    await ctx.em.query(
      `DELETE FROM server_tool_override o USING tool t
       WHERE o.server_id = $1 AND t.id = o.tool_id
         AND ${ctx.names.expression('t')} = $2`,
      [server.id, ref],
    );
    changes.push({ field: `overrides.${ref}`, from: override });
  }
  try {
    await assertNoClash(ctx.em, ctx.listedNames, server);
  } catch (error) {
    if (!(error instanceof ServerException) || error.code !== ServerErrorCode.NameClash)
      throw error;
    throw new ConfigDocumentException(
      ConfigDocumentErrorCode.Invalid,
      `${where}: ${error.message}`,
    );
  }
  return changes;
}
