import { z } from 'zod';
import { TeamScope } from '../../auth/team-scope';
import { URI_SLUG_SEPARATOR } from '../../resources/resource-uri';
import { describeClash } from '../../servers/original-names.query';
import { type MemberField, type ServerMemberIds } from '../../servers/server-members.store';
import { CLIENT_ERAS, SERVER_NAMINGS, Server } from '../../servers/server.entity';
import { Team } from '../../teams/team.entity';
import { TOOL_NAME_RULE } from '../../common/tool-name-rule';
import { buildHooks } from '../../policies/hooks/hook-registry';
import { HookConfigError } from '../../policies/hooks/tool-call-hook';
import { type FieldChange, listChange, scalarChanges } from '../config-change';
import { ConfigDocumentErrorCode, ConfigDocumentException } from '../config-document.exception';
import {
  type ApplyContext,
  defineSection,
  type ExportContext,
  ofPendingGateway,
  teamIdOf,
  teamNameOf,
  unknownReference,
  waitsForFirstSync,
  warnCascades,
} from './config-section';
import { applyOverrides, overridesOf, toolOverrides } from './server-overrides';

/** How the document names each kind of member: the name a prefixed server shows it under. */
interface MemberKind {
  key: 'tools' | 'prompts' | 'resources' | 'resourceTemplates';
  field: MemberField;
  table: string;
  /** SQL of the reference for a row of `table` aliased `m`; the separator comes from config. */
  reference(separator: string): string;
}

const MEMBER_KINDS: MemberKind[] = [
  {
    key: 'tools',
    field: 'toolIds',
    table: 'tool',
    reference: (sep) => `(m.gateway_slug || '${sep}' || m.original_name)`,
  },
  {
    key: 'prompts',
    field: 'promptIds',
    table: 'prompt',
    reference: (sep) => `(m.gateway_slug || '${sep}' || m.original_name)`,
  },
  {
    key: 'resources',
    field: 'resourceIds',
    table: 'resource',
    reference: () => `(m.gateway_slug || '${URI_SLUG_SEPARATOR}' || m.uri)`,
  },
  {
    key: 'resourceTemplates',
    field: 'resourceTemplateIds',
    table: 'resource_template',
    reference: () => `(m.gateway_slug || '${URI_SLUG_SEPARATOR}' || m.uri_template)`,
  },
];

const names = (what: string) =>
  z.array(z.string().min(1).max(4096)).max(10_000).default([]).describe(what);

const serverItem = z
  .object({
    name: z.string().min(1).max(200).describe('Unique server name.'),
    description: z.string().max(4000).default(''),
    enabled: z.boolean().default(true),
    naming: z.enum(SERVER_NAMINGS).default('prefixed'),
    clientEras: z
      .enum(CLIENT_ERAS)
      .default('any')
      .describe("The clients it takes, by era: any, or only '2025' or only '2026-07-28'."),
    team: z.string().nullable().default(null).describe('Name of the owning team; null: global.'),
    tools: names('Member tools by virtual name (`<gateway slug><separator><tool name>`).'),
    prompts: names('Member prompts by virtual name.'),
    resources: names('Member resources as `<gateway slug>+<upstream URI>`.'),
    resourceTemplates: names('Member resource templates as `<gateway slug>+<URI template>`.'),
    toolSearch: z
      .object({
        enabled: z.boolean(),
        alwaysLoaded: z
          .array(z.string().regex(TOOL_NAME_RULE))
          .max(1000)
          .default([])
          .describe('Virtual names of member tools that stay listed.'),
      })
      .strict()
      .default({ enabled: false, alwaysLoaded: [] })
      .describe('Deferred tool search.'),
    overrides: toolOverrides,
    hooks: z
      .array(
        z
          .object({
            name: z
              .string()
              .min(1)
              .max(64)
              .describe('A built-in hook: secret-redaction, size-limit.'),
            config: z.record(z.string(), z.unknown()).optional().describe('The hook’s settings.'),
          })
          .strict(),
      )
      .max(20)
      .default([])
      .describe('Hooks run around every tool call of the server, in this order.'),
  })
  .strict();

type ServerItem = z.output<typeof serverItem>;

/** Virtual servers by name, with their members by the names clients see. */
export const serversSection = defineSection({
  key: 'servers',
  description:
    'Virtual servers, by name, with their members, tool overrides, hooks and tool search settings.',
  item: serverItem,

  async export(ctx) {
    const servers = await ctx.em.getRepository(Server).find({ order: { name: 'ASC' } });
    const teams = new Map((await ctx.em.getRepository(Team).find()).map((t) => [t.id, t.name]));
    const ids = servers.map((server) => server.id);
    const members = await memberReferences(ctx, ids);
    const overrides = await overridesOf(ctx, ids);
    return servers.map((server) => {
      const own = members.get(server.id);
      return {
        name: server.name,
        ...(server.description ? { description: server.description } : {}),
        ...(server.enabled ? {} : { enabled: false }),
        ...(server.naming === 'prefixed' ? {} : { naming: server.naming }),
        ...(server.clientEras === 'any' ? {} : { clientEras: server.clientEras }),
        ...(server.teamId === null ? {} : { team: teams.get(server.teamId) ?? null }),
        ...Object.fromEntries(
          MEMBER_KINDS.filter((kind) => own?.[kind.key].length).map((kind) => [
            kind.key,
            own![kind.key],
          ]),
        ),
        ...(server.toolSearchEnabled || server.toolSearchAlwaysLoaded.length > 0
          ? {
              toolSearch: {
                enabled: server.toolSearchEnabled,
                alwaysLoaded: server.toolSearchAlwaysLoaded,
              },
            }
          : {}),
        ...(overrides.has(server.id) ? { overrides: overrides.get(server.id) } : {}),
        ...(server.hooks.length > 0 ? { hooks: server.hooks } : {}),
      };
    });
  },

  async upsert(items, ctx) {
    const repository = ctx.em.getRepository(Server);
    const existing = new Map((await repository.find()).map((server) => [server.name, server]));
    const current = await ctx.members.idsOf(
      ctx.em,
      [...existing.values()].map((server) => server.id),
    );
    for (const item of items) {
      const where = `Server '${item.name}'`;
      const teamId = teamIdOf(ctx, item.team, where);
      checkHooks(item, where);
      const wanted = await resolveMembers(item, ctx);
      const alwaysLoaded = await checkAlwaysLoaded(item, wanted.toolIds, ctx);
      const server = existing.get(item.name) ?? null;
      const fields = scalarChanges(
        server && {
          description: server.description,
          enabled: server.enabled,
          naming: server.naming,
          clientEras: server.clientEras,
          team: teamNameOf(ctx, server.teamId),
          toolSearch: {
            enabled: server.toolSearchEnabled,
            alwaysLoaded: server.toolSearchAlwaysLoaded,
          },
          hooks: server.hooks,
        },
        {
          description: item.description,
          enabled: item.enabled,
          naming: item.naming,
          clientEras: item.clientEras,
          team: item.team,
          toolSearch: { enabled: item.toolSearch.enabled, alwaysLoaded },
          hooks: item.hooks,
        },
      );
      const had = server === null ? null : current.get(server.id)!;
      const memberFields = await memberChanges(had, wanted, ctx);
      let saved = server;
      if (saved === null || fields.length > 0 || memberFields.length > 0) {
        saved = await repository.save(
          Object.assign(server ?? repository.create(), {
            name: item.name,
            description: item.description,
            enabled: item.enabled,
            naming: item.naming,
            clientEras: item.clientEras,
            teamId,
            toolSearchEnabled: item.toolSearch.enabled,
            toolSearchAlwaysLoaded: alwaysLoaded,
            hooks: item.hooks,
          }),
        );
        for (const kind of MEMBER_KINDS) {
          if (had !== null && sameIds(had[kind.field], wanted[kind.field])) continue;
          await ctx.members.replace(
            ctx.em,
            saved.id,
            kind.field,
            wanted[kind.field],
            TeamScope.ALL,
          );
        }
      }
      const overrideFields = await applyOverrides(saved, item.overrides, wanted.toolIds, ctx);
      if (server !== null && fields.length + memberFields.length + overrideFields.length === 0)
        continue;
      if (saved.naming === 'original') {
        const clashes = await ctx.originalNames.clashes(ctx.em, saved.id);
        if (clashes.length > 0) {
          throw new ConfigDocumentException(
            ConfigDocumentErrorCode.Invalid,
            `${where}: with naming 'original' these members would show under one name: ${clashes
              .slice(0, 10)
              .map(describeClash)
              .join('; ')}.`,
          );
        }
      }
      ctx.changed.serverIds.add(saved.id);
      ctx.changes.push({
        action: server === null ? 'create' : 'update',
        kind: 'server',
        name: item.name,
        fields: [...fields, ...memberFields, ...overrideFields],
      });
    }
  },

  async prune(items, ctx) {
    const named = new Set(items.map((item) => item.name));
    const servers = await ctx.em.getRepository(Server).find({ order: { name: 'ASC' } });
    for (const server of servers.filter((server) => !named.has(server.name))) {
      await warnCascades(ctx, `Server '${server.name}'`, server.id, {
        '# of its policies': 'SELECT count(*) AS n FROM policy WHERE server_id = $1',
        '# of its rate limits': 'SELECT count(*) AS n FROM rate_limit WHERE server_id = $1',
        '# of its consolidated tools':
          'SELECT count(*) AS n FROM server_consolidated_tool WHERE server_id = $1',
      });
      await ctx.em.getRepository(Server).delete({ id: server.id });
      ctx.changed.serverIds.add(server.id);
      ctx.changes.push({ action: 'delete', kind: 'server', name: server.name, fields: [] });
    }
  },
});

type MemberReferences = Record<MemberKind['key'], string[]>;

/** Each server's members, by reference, sorted. */
async function memberReferences(
  ctx: Pick<ExportContext, 'em' | 'names'>,
  serverIds: string[],
): Promise<Map<string, MemberReferences>> {
  const result = new Map<string, MemberReferences>(
    serverIds.map((id) => [id, { tools: [], prompts: [], resources: [], resourceTemplates: [] }]),
  );
  if (serverIds.length === 0) return result;
  for (const kind of MEMBER_KINDS) {
    const join = JOIN_OF[kind.key];
    const rows: { serverId: string; ref: string }[] = await ctx.em.query(
      `SELECT j.server_id AS "serverId", ${kind.reference(ctx.names.separator)} AS ref
       FROM ${join.table} j JOIN ${kind.table} m ON m.id = j.${join.column}
       WHERE j.server_id = ANY($1::uuid[]) ORDER BY 2`,
      [serverIds],
    );
    for (const row of rows) result.get(row.serverId)?.[kind.key].push(row.ref);
  }
  return result;
}

const JOIN_OF: Record<MemberKind['key'], { table: string; column: string }> = {
  tools: { table: 'server_tool', column: 'tool_id' },
  prompts: { table: 'server_prompt', column: 'prompt_id' },
  resources: { table: 'server_resource', column: 'resource_id' },
  resourceTemplates: { table: 'server_resource_template', column: 'template_id' },
};

/**
 * The ids the document's member names stand for. A name under a gateway this apply created or
 * reconnected waits for that gateway's sync (a second pass after the commit); any other unknown
 * name fails the apply.
 */
async function resolveMembers(item: ServerItem, ctx: ApplyContext): Promise<ServerMemberIds> {
  const ids: ServerMemberIds = {
    toolIds: [],
    resourceIds: [],
    resourceTemplateIds: [],
    promptIds: [],
  };
  const unknown: string[] = [];
  for (const kind of MEMBER_KINDS) {
    const wanted = [...new Set(item[kind.key])];
    if (wanted.length === 0) continue;
    const rows: { id: string; ref: string }[] = await ctx.em.query(
      `SELECT m.id, ${kind.reference(ctx.names.separator)} AS ref FROM ${kind.table} m
       WHERE ${kind.reference(ctx.names.separator)} = ANY($1::text[])`,
      [wanted],
    );
    const found = new Map(rows.map((row) => [row.ref, row.id]));
    ids[kind.field] = [...found.values()].sort();
    for (const ref of wanted.filter((ref) => !found.has(ref))) {
      const what = `Server '${item.name}': ${kind.key} '${ref}'`;
      if (!waitsForFirstSync(ctx, ref, separatorOf(kind, ctx), what))
        unknown.push(`${kind.key} '${ref}'`);
    }
  }
  if (unknown.length > 0) {
    throw unknownReference(
      `Server '${item.name}' names members that do not exist: ${unknown.slice(0, 20).join(', ')}`,
    );
  }
  return ids;
}

/** What joins a member's gateway slug to its name or URI. */
function separatorOf(kind: MemberKind, ctx: ApplyContext): string {
  return kind.key === 'resources' || kind.key === 'resourceTemplates'
    ? URI_SLUG_SEPARATOR
    : ctx.names.separator;
}

/** Hooks are checked as PUT /api/v1/servers/:id/hooks checks them, with the same messages. */
function checkHooks(item: ServerItem, where: string): void {
  try {
    buildHooks(item.hooks);
  } catch (error) {
    if (!(error instanceof HookConfigError)) throw error;
    throw new ConfigDocumentException(
      ConfigDocumentErrorCode.Invalid,
      `${where} hooks: ${error.message}`,
    );
  }
}

/** Always-loaded names must be member tools; those of pending members are kept for later. */
async function checkAlwaysLoaded(
  item: ServerItem,
  toolIds: string[],
  ctx: ApplyContext,
): Promise<string[]> {
  const names = item.toolSearch.alwaysLoaded;
  if (names.length === 0) return [];
  const rows: { ref: string }[] = await ctx.em.query(
    `SELECT ${MEMBER_KINDS[0]!.reference(ctx.names.separator)} AS ref FROM tool m
     WHERE m.id = ANY($1::uuid[])`,
    [toolIds],
  );
  const members = new Set(rows.map((row) => row.ref));
  const missing = names.filter(
    (name) => !members.has(name) && !ofPendingGateway(ctx, name, ctx.names.separator),
  );
  if (missing.length > 0) {
    throw unknownReference(
      `Server '${item.name}' toolSearch.alwaysLoaded names tools that are not among its tools: ${missing.join(', ')}`,
    );
  }
  return names;
}

/** Member changes by reference, as the plan shows them. */
async function memberChanges(
  had: ServerMemberIds | null,
  wanted: ServerMemberIds,
  ctx: ApplyContext,
): Promise<FieldChange[]> {
  const changes: FieldChange[] = [];
  for (const kind of MEMBER_KINDS) {
    const before = had?.[kind.field] ?? [];
    if (sameIds(before, wanted[kind.field])) continue;
    const refs = await referencesOf(kind, [...before, ...wanted[kind.field]], ctx);
    const change = listChange(
      kind.key,
      before.map((id) => refs.get(id) ?? id),
      wanted[kind.field].map((id) => refs.get(id) ?? id),
    );
    if (change) changes.push(change);
  }
  return changes;
}

async function referencesOf(
  kind: MemberKind,
  ids: string[],
  ctx: ApplyContext,
): Promise<Map<string, string>> {
  const rows: { id: string; ref: string }[] = await ctx.em.query(
    `SELECT m.id, ${kind.reference(ctx.names.separator)} AS ref FROM ${kind.table} m
     WHERE m.id = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.ref]));
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
}
