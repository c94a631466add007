import { type EntityManager } from 'typeorm';
import { type z } from 'zod';
import { type Gateway } from '../../gateways/gateway.entity';
import { type Rescan } from '../../pinning/pin-rescans.service';
import { type ServerMembersStore } from '../../servers/server-members.store';
import { Server } from '../../servers/server.entity';
import { type ListedNamesQuery } from '../../servers/listed-names.query';
import { type OriginalNamesQuery } from '../../servers/original-names.query';
import { type ToolNameQuery } from '../../virtual-names/tool-name.query';
import { type ConfigChange } from '../config-change';
import { ConfigDocumentErrorCode, ConfigDocumentException } from '../config-document.exception';
import { type SecretSource } from '../secret-ref';

/** What the section appliers share while one document is applied in one transaction. */
export interface ApplyContext {
  em: EntityManager;
  secrets: SecretSource;
  encryptionKey: Buffer;
  /** The commands a stdio gateway may launch (STDIO_COMMANDS). */
  stdioCommands: readonly string[];
  /** Drops a gateway's upstream OAuth tokens and client, when its URL or auth changes. */
  forgetOAuth(em: EntityManager, gatewayId: string): Promise<void>;
  /**
   * Judges every definition of a gateway whose pinning settings changed again, at once
   * (pin-rescans.service.ts); `pinAll`: pinning was switched on. Audited after the commit.
   */
  rejudgePins(em: EntityManager, gateway: Gateway, pinAll: boolean): Promise<void>;
  /** What those judgements did, for the audit trail once the transaction has committed. */
  rescans: Rescan[];
  names: ToolNameQuery;
  members: ServerMembersStore;
  originalNames: OriginalNamesQuery;
  /** Finds members that overrides would show under one name. */
  listedNames: ListedNamesQuery;
  changes: ConfigChange[];
  warnings: string[];
  /** Team ids by name, filled by the teams section (or read when the document has none). */
  teamIds: Map<string, string>;
  /**
   * The policies the document names, in `policies` or converted from a `toolRules` section:
   * filled by their upserts, so that pruning either keeps the other's.
   */
  policyNames: Set<string>;
  /** Gateways to sync once the transaction has committed; never called inside it. */
  gatewaysToSync: Set<string>;
  /**
   * Slugs of gateways this apply created or reconnected: their tools arrive with the sync after
   * the commit, so members named under them wait for a second pass instead of failing.
   */
  pendingSlugs: Set<string>;
  /** Whether members are still waiting after this pass (then another pass follows the syncs). */
  pendingMembers: boolean;
  changed: {
    gatewayIds: Set<string>;
    serverIds: Set<string>;
    userIds: Set<string>;
    /** Something every endpoint's directory depends on changed (a global rate limit). */
    everyServer: boolean;
  };
}

export interface ExportContext {
  em: EntityManager;
  names: ToolNameQuery;
  encryptionKey: Buffer;
}

/**
 * One top-level list of the document (`teams`, `gateways`, `servers`, …). A section absent from a
 * document is left alone; a present one is made to match, and with prune, what it does not name
 * is deleted. Adding a section is one file and one line in CONFIG_SECTIONS.
 */
export interface ConfigSection {
  key: string;
  description: string;
  /** A section still read from older documents, never written by an export. */
  legacy?: boolean;
  item: z.ZodType;
  export(ctx: ExportContext): Promise<unknown[]>;
  /** Creates and updates, in document order of sections. */
  upsert(items: unknown[], ctx: ApplyContext): Promise<void>;
  /** Deletes what the document does not name; runs in reverse order of sections. */
  prune(items: unknown[], ctx: ApplyContext): Promise<void>;
}

/** A section whose appliers get their items typed by the section's own schema. */
export function defineSection<S extends z.ZodType>(spec: {
  key: string;
  description: string;
  legacy?: boolean;
  item: S;
  export(ctx: ExportContext): Promise<z.input<S>[]>;
  upsert(items: z.output<S>[], ctx: ApplyContext): Promise<void>;
  prune(items: z.output<S>[], ctx: ApplyContext): Promise<void>;
}): ConfigSection {
  const typed = (items: unknown[]) => items.map((item) => spec.item.parse(item));
  return {
    key: spec.key,
    description: spec.description,
    ...(spec.legacy ? { legacy: true } : {}),
    item: spec.item,
    export: (ctx) => spec.export(ctx),
    upsert: (items, ctx) => spec.upsert(typed(items), ctx),
    prune: (items, ctx) => spec.prune(typed(items), ctx),
  };
}

/** Team name → id, or a 422 naming the record that asked for it. */
export function teamIdOf(ctx: ApplyContext, team: string | null, where: string): string | null {
  if (team === null) return null;
  const id = ctx.teamIds.get(team);
  if (id === undefined)
    throw unknownReference(`${where} names the team '${team}', which does not exist`);
  return id;
}

/** The name of a stored record's team, as the document would write it. */
export function teamNameOf(ctx: ApplyContext, teamId: string | null): string | null {
  if (teamId === null) return null;
  for (const [name, id] of ctx.teamIds) if (id === teamId) return name;
  return `(team ${teamId})`;
}

/** Server name → id (null for none), or a 422 naming the record that asked for it. */
export async function serverIdOf(
  ctx: ApplyContext,
  server: string | null,
  where: string,
): Promise<string | null> {
  if (server === null) return null;
  const found = await ctx.em.getRepository(Server).findOneBy({ name: server });
  if (!found) throw unknownReference(`${where} names the server '${server}', which does not exist`);
  return found.id;
}

/**
 * A tool's id by virtual name (null for none); also null, with a warning, when the tool waits
 * for the first sync of a gateway this apply created; else a 422 for an unknown one.
 */
export async function toolIdOf(
  ctx: ApplyContext,
  tool: string | null,
  where: string,
): Promise<string | null> {
  if (tool === null) return null;
  const rows: { id: string }[] = await ctx.em.query(
    `SELECT id FROM tool WHERE ${ctx.names.expression('tool')} = $1`,
    [tool],
  );
  if (rows.length > 0) return rows[0]!.id;
  if (waitsForFirstSync(ctx, tool, ctx.names.separator, where)) return null;
  throw unknownReference(`${where} names the tool '${tool}', which does not exist`);
}

/** Whether `reference` (slug, separator, name) is of a gateway this apply created. */
export function ofPendingGateway(ctx: ApplyContext, reference: string, separator: string): boolean {
  return [...ctx.pendingSlugs].some((slug) => reference.startsWith(`${slug}${separator}`));
}

/**
 * Whether `reference` (slug, separator, name) is of a gateway this apply created, whose first
 * sync has not run yet: then what names it waits for that sync, with a warning, instead of
 * failing.
 */
export function waitsForFirstSync(
  ctx: ApplyContext,
  reference: string,
  separator: string,
  what: string,
): boolean {
  if (!ofPendingGateway(ctx, reference, separator)) return false;
  ctx.pendingMembers = true;
  ctx.warnings.push(`${what} waits for its gateway's first sync.`);
  return true;
}

/** A record of one server changes that server's directory; a global one every directory. */
export function markServerChanged(ctx: ApplyContext, serverId: string | null): void {
  if (serverId === null) ctx.changed.everyServer = true;
  else ctx.changed.serverIds.add(serverId);
}

export function unknownReference(message: string): ConfigDocumentException {
  return new ConfigDocumentException(ConfigDocumentErrorCode.UnknownReference, `${message}.`);
}

/**
 * What deleting a record takes with it that its own sections do not show (the database's
 * cascades), said as a warning beside the plan's delete: `counts` are SQL counts over `id`, by
 * labels in which `#` stands for the count.
 */
export async function warnCascades(
  ctx: ApplyContext,
  what: string,
  id: string,
  counts: Record<string, string>,
): Promise<void> {
  const taken: string[] = [];
  for (const [label, sql] of Object.entries(counts)) {
    const [row] = await ctx.em.query<{ n: string | number }[]>(sql, [id]);
    const n = Number(row?.n ?? 0);
    if (n > 0) taken.push(label.replace('#', String(n)));
  }
  if (taken.length > 0) ctx.warnings.push(`${what} is deleted, and with it ${taken.join(', ')}.`);
}
