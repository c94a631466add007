import { z } from 'zod';
import { RATE_LIMIT_KEYS, RateLimit } from '../../rate-limits/rate-limit.entity';
import { type FieldChange, scalarChanges } from '../config-change';
import { ConfigDocumentErrorCode, ConfigDocumentException } from '../config-document.exception';
import {
  type ApplyContext,
  defineSection,
  markServerChanged,
  serverIdOf,
  toolIdOf,
} from './config-section';

const rateLimitItem = z
  .object({
    per: z
      .enum(RATE_LIMIT_KEYS)
      .describe('Whose calls one bucket counts: each token’s, or each user’s.'),
    server: z
      .string()
      .nullable()
      .default(null)
      .describe('Name of the virtual server it applies to; null or absent: every endpoint.'),
    tool: z
      .string()
      .nullable()
      .default(null)
      .describe('Virtual name of the one tool it counts; null or absent: all tools together.'),
    points: z.number().int().min(1).max(1_000_000).describe('Calls allowed per window.'),
    windowSeconds: z.number().int().min(1).max(86_400).describe('The window, in seconds.'),
  })
  .strict();

type RateLimitItem = z.output<typeof rateLimitItem>;

/** Tool call limits, each known by whom it counts, where, and for which tool. */
export const rateLimitsSection = defineSection({
  key: 'rateLimits',
  description: 'Tool call rate limits, each known by `per`, `server` and `tool`.',
  item: rateLimitItem,

  async export(ctx) {
    return [...(await storedByKey(ctx)).values()].map((row) => ({
      per: row.per,
      ...(row.serverName === null ? {} : { server: row.serverName }),
      ...(row.virtualName === null ? {} : { tool: row.virtualName }),
      points: row.points,
      windowSeconds: row.windowSeconds,
    }));
  },

  async upsert(items, ctx) {
    const seen = new Set<string>();
    const existing = await storedByKey(ctx);
    for (const item of items) {
      const key = keyOf(item);
      if (seen.has(key)) throw invalid(`The rate limit ${key} is named twice`);
      seen.add(key);
      const limit = existing.get(key) ?? null;
      const target = await targetOf(item, limit, ctx);
      if (target === null) continue;
      const fields: FieldChange[] = scalarChanges(
        limit && { points: limit.points, windowSeconds: limit.windowSeconds },
        { points: item.points, windowSeconds: item.windowSeconds },
      );
      if (limit !== null && fields.length === 0) continue;
      const repository = ctx.em.getRepository(RateLimit);
      await repository.save(
        Object.assign(limit ?? repository.create(), {
          per: item.per,
          ...target,
          points: item.points,
          windowSeconds: item.windowSeconds,
        }),
      );
      markServerChanged(ctx, target.serverId);
      ctx.changes.push({
        action: limit === null ? 'create' : 'update',
        kind: 'rate limit',
        name: key,
        fields,
      });
    }
  },

  async prune(items, ctx) {
    const named = new Set(items.map(keyOf));
    for (const [key, limit] of await storedByKey(ctx)) {
      if (named.has(key)) continue;
      await ctx.em.getRepository(RateLimit).delete({ id: limit.id });
      markServerChanged(ctx, limit.serverId);
      ctx.changes.push({ action: 'delete', kind: 'rate limit', name: key, fields: [] });
    }
  },
});

/** How the plan names a limit: `per token on "Support" for github-create_issue`. */
function keyOf(item: Pick<RateLimitItem, 'per' | 'server' | 'tool'>): string {
  return `per ${item.per} on ${item.server === null ? 'every endpoint' : `"${item.server}"`} for ${item.tool ?? 'all tools'}`;
}

interface StoredLimit extends RateLimit {
  serverName: string | null;
  /** The virtual name of its tool, also while the tool is away. */
  virtualName: string | null;
}

/** The stored limits by key, in the order an export lists them. */
async function storedByKey(
  ctx: Pick<ApplyContext, 'em' | 'names'>,
): Promise<Map<string, StoredLimit>> {
  // The tool is named from its gateway's slug and upstream name, which outlive its row.
  const rows: StoredLimit[] = await ctx.em.query(
    `SELECT l.id, l.per, l.server_id AS "serverId", l.gateway_id AS "gatewayId",
            l.tool_name AS "toolName", l.points, l.window_seconds AS "windowSeconds",
            s.name AS "serverName", ${ctx.names.expression('t')} AS "virtualName"
     FROM rate_limit l LEFT JOIN server s ON s.id = l.server_id
     LEFT JOIN LATERAL (SELECT g.slug AS gateway_slug, l.tool_name AS original_name
                        FROM gateway g WHERE g.id = l.gateway_id) AS t ON true
     ORDER BY s.name NULLS FIRST, 9 NULLS FIRST, l.per`,
  );
  return new Map(
    rows.map((row) => [
      keyOf({ per: row.per, server: row.serverName, tool: row.virtualName }),
      row,
    ]),
  );
}

/**
 * The server and tool (by gateway and upstream name) the item names; null when its tool waits for
 * its gateway's first sync. A stored limit keeps its tool, also while the upstream does not list it.
 */
async function targetOf(
  item: RateLimitItem,
  stored: StoredLimit | null,
  ctx: ApplyContext,
): Promise<Pick<RateLimit, 'serverId' | 'gatewayId' | 'toolName'> | null> {
  const where = `Rate limit ${keyOf(item)}`;
  const serverId = await serverIdOf(ctx, item.server, where);
  if (stored !== null) return { serverId, gatewayId: stored.gatewayId, toolName: stored.toolName };
  const toolId = await toolIdOf(ctx, item.tool, where);
  if (toolId === null)
    return item.tool === null ? { serverId, gatewayId: null, toolName: null } : null;
  const [tool] = await ctx.em.query<{ gatewayId: string; toolName: string }[]>(
    'SELECT gateway_id AS "gatewayId", original_name AS "toolName" FROM tool WHERE id = $1',
    [toolId],
  );
  return { serverId, gatewayId: tool!.gatewayId, toolName: tool!.toolName };
}

function invalid(message: string): ConfigDocumentException {
  return new ConfigDocumentException(ConfigDocumentErrorCode.Invalid, `${message}.`);
}
