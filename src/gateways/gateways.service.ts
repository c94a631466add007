import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, IsNull } from 'typeorm';
import { AuthErrorCode, AuthException } from '../auth/auth.exception';
import { type TeamScope } from '../auth/team-scope';
import { StdioSupervisor } from '../upstream/transport/stdio/stdio-supervisor.service';
import { UpstreamAdmissions } from '../upstream/resilience/upstream-admissions.service';
import { storedEraOf, upstreamFingerprint } from '../upstream/upstream-target';
import { type EraPin } from '../upstream/eras/protocol-era';
import { SecretSettings } from '../config/slices/secrets.settings';
import { UpstreamSettings } from '../config/slices/upstream.settings';
import { type Page, type PageQueryDto } from '../common/page.dto';
import { RequestValidationException } from '../common/request-validation.exception';
import { uniqueViolation } from '../common/unique-violation';
import { EventBus } from '../events/event-bus';
import { Server } from '../servers/server.entity';
import { SyncService } from '../sync/sync.service';
import { TeamsService } from '../teams/teams.service';
import { TOOL_NAME_MAX_LENGTH } from '../common/tool-name-rule';
import { PinRescans, type Rescan } from '../pinning/pin-rescans.service';
import { Prompt } from '../prompts/prompt.entity';
import { ResourceTemplate } from '../resources/resource-template.entity';
import { Resource } from '../resources/resource.entity';
import {
  PROMPT_VIRTUAL_NAME_INDEX,
  ToolNameQuery,
  VIRTUAL_NAME_INDEX,
} from '../virtual-names/tool-name.query';
import { Tool } from '../tools/tool.entity';
import { type OAuthConnectionState, UpstreamOAuth } from '../upstream/oauth/upstream-oauth.service';
import { SHARED_OWNER } from '../upstream/oauth/upstream-oauth-token.entity';
import { type GatewayAuthDto } from './dto/gateway-auth.dto';
import { type GatewayCreateDto, URL_MAX_LENGTH } from './dto/gateway-create.dto';
import { OpenApiDocumentError, parseDocument } from '../upstream/openapi/openapi-document';
import { type GatewayProcessesDto } from './dto/gateway-processes.dto';
import { type GatewayResponseDto } from './dto/gateway-response.dto';
import { type GatewayUpdateDto } from './dto/gateway-update.dto';
import { Gateway, type GatewayTransport } from './gateway.entity';
import {
  type GatewayCredentials,
  openCredentials,
  sealCredentials,
  type SealedCredentials,
} from '../upstream/upstream-credentials';
import { sealStdioEnv } from '../upstream/transport/stdio/stdio-process';
import { gatewaySlug } from './gateway-slug';
import { GatewayErrorCode, GatewayException } from './gateway.exception';

const CONSTRAINT_CODES: Record<string, GatewayErrorCode> = {
  gateway_name_uq: GatewayErrorCode.NameTaken,
  gateway_slug_uq: GatewayErrorCode.SlugTaken,
  gateway_url_uq: GatewayErrorCode.UrlTaken,
  [VIRTUAL_NAME_INDEX]: GatewayErrorCode.ToolNameClash,
  [PROMPT_VIRTUAL_NAME_INDEX]: GatewayErrorCode.ToolNameClash,
};

@Injectable()
export class GatewaysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
    private readonly secrets: SecretSettings,
    private readonly upstreamSettings: UpstreamSettings,
    private readonly sync: SyncService,
    private readonly events: EventBus,
    private readonly teams: TeamsService,
    private readonly oauth: UpstreamOAuth,
    private readonly stdio: StdioSupervisor,
    private readonly guards: UpstreamAdmissions,
    private readonly rescans: PinRescans,
  ) {}

  /** The stdio processes this replica runs for the gateway; none for HTTP gateways. */
  async processes(id: string, scope: TeamScope): Promise<GatewayProcessesDto> {
    const gateway = await this.visible(id, scope);
    return (
      this.stdio.status(gateway.id) ?? {
        processes: [],
        restarts: 0,
        failures: 0,
        lastExit: null,
        retryAt: null,
        stderr: [],
      }
    );
  }

  async list(page: PageQueryDto, scope: TeamScope): Promise<Page<GatewayResponseDto>> {
    const qb = this.dataSource
      .getRepository(Gateway)
      .createQueryBuilder('gateway')
      .orderBy('gateway.name', 'ASC')
      .skip(page.offset)
      .take(page.limit);
    const [gateways, total] = await scope.visible(qb, 'gateway.team_id').getManyAndCount();
    const ids = gateways.map((gateway) => gateway.id);
    const counts = await this.toolCounts(ids);
    const connections = await this.oauth.connections(
      gateways.filter((gateway) => gateway.authType === 'oauth').map((gateway) => gateway.id),
    );
    return {
      items: gateways.map((gateway) =>
        this.toResponse(gateway, counts.get(gateway.id) ?? 0, connections.get(gateway.id) ?? []),
      ),
      total,
    };
  }

  /** Every visible gateway's id, name and state, without counts: for filters and pickers. */
  async summaries(
    scope: TeamScope,
  ): Promise<Pick<GatewayResponseDto, 'id' | 'name' | 'slug' | 'enabled'>[]> {
    const qb = this.dataSource
      .getRepository(Gateway)
      .createQueryBuilder('gateway')
      .select(['gateway.id', 'gateway.name', 'gateway.slug', 'gateway.enabled'])
      .orderBy('gateway.name', 'ASC');
    return scope.visible(qb, 'gateway.team_id').getMany();
  }

  async get(id: string, scope: TeamScope): Promise<GatewayResponseDto> {
    const gateway = await this.visible(id, scope);
    const connections =
      gateway.authType === 'oauth' ? ((await this.oauth.connections([id])).get(id) ?? []) : [];
    return this.toResponse(gateway, (await this.toolCounts([id])).get(id) ?? 0, connections);
  }

  /** The OAuth gateways this scope sees, with the mode: where accounts can be connected. */
  async oauthGateways(
    scope: TeamScope,
  ): Promise<Pick<Gateway, 'id' | 'name' | 'oauthMode' | 'enabled'>[]> {
    const qb = this.dataSource
      .getRepository(Gateway)
      .createQueryBuilder('gateway')
      .select(['gateway.id', 'gateway.name', 'gateway.oauthMode', 'gateway.enabled'])
      .where("gateway.auth_type = 'oauth'")
      .orderBy('gateway.name', 'ASC');
    return scope.visible(qb, 'gateway.team_id').getMany();
  }

  /** The gateway, if this scope sees it: one of another team is as missing as one that is not. */
  async visible(
    id: string,
    scope: TeamScope,
    em: EntityManager = this.dataSource.manager,
    forUpdate = false,
  ): Promise<Gateway> {
    const gateway = await this.find(id, em, forUpdate);
    if (!scope.canSee(gateway.teamId)) throw notFound(id);
    return gateway;
  }

  /** The gateway, if this scope may change it (404 when it does not see it, 403 when it only sees it). */
  async manageable(
    id: string,
    scope: TeamScope,
    em: EntityManager = this.dataSource.manager,
    forUpdate = false,
  ): Promise<Gateway> {
    const gateway = await this.visible(id, scope, em, forUpdate);
    scope.assertManage(gateway.teamId, `Gateway '${gateway.name}'`);
    return gateway;
  }

  /**
   * A new gateway, synced at once. `origin` says which registry entry it is imported from: it is
   * stored with the gateway, before anything connects, and a team gets one gateway of a registry
   * server however many imports race.
   */
  async create(
    dto: GatewayCreateDto,
    scope: TeamScope,
    origin: RegistryOrigin | null = null,
  ): Promise<GatewayResponseDto> {
    const slug = this.slugOf(dto.name);
    const transport = this.transportColumns(dto, null, scope);
    assertCredentialsStay(dto, null, transport, scope);
    const eraPin = eraPinOf(dto, transport.transport, 'auto');
    const teamId = scope.teamForNew(dto.teamId, `Gateway '${dto.name}'`);
    const gateway = await this.writing(async (em) => {
      if (teamId !== null) await this.teams.assertExists(teamId, em);
      if (origin !== null) await assertNotImported(em, origin, teamId);
      await this.assertUnique(em, { name: dto.name, slug, url: transport.url });
      const repository = em.getRepository(Gateway);
      return repository.save(
        repository.create({
          name: dto.name,
          slug,
          ...transport,
          teamId,
          pinning: dto.pinning ?? 'off',
          quarantineOnFinding: dto.quarantineOnFinding ?? null,
          eraPin,
          ...this.sealAuth(dto.auth),
          ...origin,
        }),
      );
    });
    await this.sync.syncAfterChange(gateway.id);
    await this.announce(gateway.id);
    return this.get(gateway.id, scope);
  }

  async update(id: string, dto: GatewayUpdateDto, scope: TeamScope): Promise<GatewayResponseDto> {
    let reconnect = false;
    const { gateway, rescan } = await this.writing(async (em) => {
      // Locked so that a sync running now cannot add tools under the slug this may change.
      const gateway = await this.manageable(id, scope, em, true);
      if (dto.teamId !== undefined && dto.teamId !== gateway.teamId) {
        scope.assertManage(dto.teamId, `Gateway '${gateway.name}'`);
        if (dto.teamId !== null) await this.teams.assertExists(dto.teamId, em);
      }
      const slug = dto.name === undefined ? gateway.slug : this.slugOf(dto.name);
      const transport = this.transportColumns(dto, gateway, scope);
      assertCredentialsStay(dto, gateway, transport, scope);
      const eraPin = eraPinOf(dto, transport.transport, gateway.eraPin);
      await this.assertUnique(em, {
        id,
        name: dto.name ?? gateway.name,
        slug,
        url: transport.url,
      });
      if (slug !== gateway.slug) {
        await this.assertMayRename(em, gateway, scope);
        await this.reslugTools(em, gateway.id, gateway.slug, slug);
      }
      if (
        gateway.authType === 'oauth' &&
        (transport.url !== gateway.url || (dto.auth !== undefined && dto.auth.type !== 'oauth'))
      )
        await this.oauth.forgetGateway(em, gateway.id);
      const switchedOn =
        gateway.pinning === 'off' && dto.pinning !== undefined && dto.pinning !== 'off';
      const judgedOtherwise =
        (dto.pinning !== undefined && dto.pinning !== gateway.pinning) ||
        (dto.quarantineOnFinding !== undefined &&
          dto.quarantineOnFinding !== gateway.quarantineOnFinding);
      const before = upstreamFingerprint(gateway);
      Object.assign(gateway, {
        name: dto.name ?? gateway.name,
        slug,
        ...transport,
        teamId: dto.teamId === undefined ? gateway.teamId : dto.teamId,
        pinning: dto.pinning ?? gateway.pinning,
        eraPin,
        quarantineOnFinding:
          dto.quarantineOnFinding === undefined
            ? gateway.quarantineOnFinding
            : dto.quarantineOnFinding,
        ...(dto.auth === undefined ? {} : this.sealAuth(dto.auth)),
      });
      reconnect = upstreamFingerprint(gateway) !== before;
      const saved = await em.getRepository(Gateway).save(gateway);
      // New settings apply to what is served now, not only to what syncs bring later: every
      // definition is judged again at once, and with pinning switched on what is not held is
      // pinned (what later changes are compared with).
      const rescan: Rescan | null = judgedOtherwise
        ? await this.rescans.rejudgeIn(em, saved, { pinAll: switchedOn })
        : null;
      return { gateway: saved, rescan };
    });
    if (rescan) await this.rescans.announce(rescan, 'settings');
    if (reconnect && gateway.enabled) await this.sync.syncAfterChange(gateway.id);
    await this.announce(gateway.id);
    return this.get(gateway.id, scope);
  }

  async remove(id: string, scope: TeamScope): Promise<void> {
    await this.manageable(id, scope);
    const result = await this.dataSource.getRepository(Gateway).delete({ id });
    if (!result.affected) throw notFound(id);
    await this.announce(id);
  }

  /**
   * Deactivating keeps the tools stored (the MCP endpoint hides them); activating syncs again.
   * Asking for the state the gateway is in changes nothing, `updatedAt` included.
   */
  async setEnabled(id: string, enabled: boolean, scope: TeamScope): Promise<GatewayResponseDto> {
    await this.manageable(id, scope);
    // Written only where it is the other state, in one statement, so no stale read decides.
    const { affected } = await this.dataSource
      .getRepository(Gateway)
      .update({ id, enabled: !enabled }, { enabled });
    if (enabled) await this.sync.syncAfterChange(id);
    if (affected) await this.announce(id);
    return this.get(id, scope);
  }

  async find(
    id: string,
    em: EntityManager = this.dataSource.manager,
    forUpdate = false,
  ): Promise<Gateway> {
    const gateway = await em.getRepository(Gateway).findOne({
      where: { id },
      ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!gateway) throw notFound(id);
    return gateway;
  }

  /** The decrypted upstream credentials, for the upstream client only. */
  credentials(gateway: Gateway): GatewayCredentials {
    return openCredentials(this.secrets.encryptionKey, gateway);
  }

  toResponse(
    gateway: Gateway,
    toolCount: number,
    connections: readonly OAuthConnectionState[] = [],
  ): GatewayResponseDto {
    const shared = connections.find((connection) => connection.owner === SHARED_OWNER);
    const users = connections.filter((connection) => connection.owner !== SHARED_OWNER);
    const { circuit, inFlight, queued } = this.guards.stateOf(gateway.id);
    return {
      id: gateway.id,
      name: gateway.name,
      slug: gateway.slug,
      url: gateway.url,
      transport: gateway.transport,
      command: gateway.stdioCommand,
      args: gateway.stdioArgs,
      cwd: gateway.stdioCwd,
      envNames: gateway.stdioEnvNames,
      openapiUrl: gateway.openapiUrl,
      openapiDocumentStored: gateway.openapiDocument !== null,
      openapiSelection: gateway.openapiSelection,
      teamId: gateway.teamId,
      authType: gateway.authType,
      oauth:
        gateway.authType === 'oauth' && gateway.oauthMode
          ? {
              mode: gateway.oauthMode,
              connected: shared?.connected ?? false,
              expiresAt: shared?.expiresAt?.toISOString() ?? null,
              refreshedAt: shared?.refreshedAt?.toISOString() ?? null,
              refreshError: shared?.refreshError ?? null,
              connectedUsers: users.filter((user) => user.connected).length,
              failedUsers: users.filter((user) => user.refreshError !== null).length,
              connectUrl: this.oauth.connectUrl(gateway.id),
            }
          : null,
      enabled: gateway.enabled,
      status: gateway.status,
      eraPin: gateway.eraPin,
      protocol: this.protocolOf(gateway),
      lastError: gateway.lastError,
      lastSeenAt: gateway.lastSeenAt?.toISOString() ?? null,
      lastSyncAt: gateway.lastSyncAt?.toISOString() ?? null,
      lastSyncReport: gateway.lastSyncReport,
      circuit: { ...circuit, retryAt: circuit.retryAt?.toISOString() ?? null },
      load: { inFlight, queued },
      toolCount,
      pinning: gateway.pinning,
      quarantineOnFinding: gateway.quarantineOnFinding,
      registry:
        gateway.registryUrl !== null &&
        gateway.registryServerName !== null &&
        gateway.registryVersion !== null
          ? {
              url: gateway.registryUrl,
              serverName: gateway.registryServerName,
              version: gateway.registryVersion,
            }
          : null,
      createdAt: gateway.createdAt.toISOString(),
      updatedAt: gateway.updatedAt.toISOString(),
    };
  }

  private protocolOf(gateway: Gateway): GatewayResponseDto['protocol'] {
    const verdict = storedEraOf(gateway);
    if (!verdict) return null;
    const expiresAt =
      verdict.checkedAt.getTime() + this.upstreamSettings.upstreamEraTtlSeconds * 1000;
    return {
      era: verdict.era,
      version: verdict.version,
      supportedVersions: verdict.supportedVersions,
      checkedAt: verdict.checkedAt.toISOString(),
      expiresAt: new Date(expiresAt).toISOString(),
    };
  }

  private async toolCounts(gatewayIds: string[]): Promise<Map<string, number>> {
    if (gatewayIds.length === 0) return new Map();
    const rows: { gatewayId: string; count: number }[] = await this.dataSource
      .getRepository(Tool)
      .createQueryBuilder('tool')
      .select('tool.gateway_id', 'gatewayId')
      .addSelect('COUNT(*)::int', 'count')
      .where('tool.gateway_id = ANY(:gatewayIds)', { gatewayIds })
      .groupBy('tool.gateway_id')
      .getRawMany();
    return new Map(rows.map((row) => [row.gatewayId, row.count]));
  }

  /**
   * A gateway's slug begins the canonical name of each of its tools, which policies read
   * (`tool.name`, `tool.gateway`): while any policy is in force, only an admin may change it, so
   * that no operator lifts an admin's policy by renaming the gateway under it.
   */
  private async assertMayRename(
    em: EntityManager,
    gateway: Gateway,
    scope: TeamScope,
  ): Promise<void> {
    if (scope.everything) return;
    const policies: unknown[] = await em.query('SELECT 1 FROM policy WHERE enabled LIMIT 1');
    if (policies.length === 0) return;
    throw new AuthException(
      AuthErrorCode.Forbidden,
      `Renaming gateway '${gateway.name}' changes the names of its tools, which policies read; while policies are in force, only an admin may rename it.`,
    );
  }

  private slugOf(name: string): string {
    const slug = gatewaySlug(name);
    if (!slug) {
      throw new GatewayException(
        GatewayErrorCode.SlugEmpty,
        `The name '${name}' has no letters or digits to make a slug from.`,
      );
    }
    return slug;
  }

  /** Tells every replica (caches, MCP sessions, upstream watches) that the gateway changed. */
  private async announce(gatewayId: string): Promise<void> {
    await this.events.publish({ type: 'catalog.changed', gatewayIds: [gatewayId] });
  }

  private sealAuth(auth: GatewayAuthDto | undefined): SealedCredentials {
    return sealCredentials(this.secrets.encryptionKey, credentialsOf(auth));
  }

  /**
   * Where the upstream is, as stored: a URL, or for stdio what to launch. A stdio command is code
   * run on Portico's host, so only admins set or change a stdio gateway, and only with a command
   * on STDIO_COMMANDS.
   */
  private transportColumns(
    dto: GatewayUpdateDto,
    existing: Gateway | null,
    scope: TeamScope,
  ): TransportColumns {
    const transport = dto.transport ?? existing?.transport ?? 'streamable-http';
    const wasStdio = existing?.transport === 'stdio';
    if ((transport === 'stdio' || wasStdio) && !scope.everything)
      throw new AuthException(
        AuthErrorCode.Forbidden,
        'Only admins may create or edit a stdio gateway: its command runs on the Portico host.',
      );
    if (transport !== 'openapi')
      for (const field of ['openapiUrl', 'openapiDocument', 'openapiSelection'] as const)
        if (dto[field] !== undefined)
          throw fieldProblem(field, `${field} applies only to the openapi transport`);
    if (transport !== 'stdio') {
      for (const field of ['command', 'args', 'env', 'cwd'] as const)
        if (dto[field] !== undefined)
          throw fieldProblem(field, `${field} applies only to the stdio transport`);
      const url = dto.url ?? existing?.url ?? null;
      if (url === null) throw fieldProblem('url', 'url is required unless transport is stdio');
      const openapi = transport === 'openapi' ? openApiColumns(dto, existing) : NO_OPENAPI;
      return { transport, url: normaliseUrl(url), ...NO_STDIO, ...openapi };
    }
    if (dto.url !== undefined) throw fieldProblem('url', 'url does not apply to stdio');
    if (dto.auth !== undefined && dto.auth.type !== 'none')
      throw fieldProblem('auth', 'a stdio gateway takes its secrets in env, not auth');
    const command = dto.command ?? (wasStdio ? existing.stdioCommand : null);
    if (!command) throw fieldProblem('command', 'command is required for the stdio transport');
    if (!this.upstreamSettings.stdioCommands.includes(command))
      throw new GatewayException(
        GatewayErrorCode.StdioCommandNotAllowed,
        this.upstreamSettings.stdioCommands.length === 0
          ? 'Stdio upstreams are off: set STDIO_COMMANDS (for example npx,node,uvx) to the commands Portico may launch.'
          : `The command '${command}' is not on STDIO_COMMANDS (${this.upstreamSettings.stdioCommands.join(', ')}).`,
      );
    return {
      transport,
      url: null,
      ...NO_OPENAPI,
      stdioCommand: command,
      stdioArgs: dto.args ?? (wasStdio ? existing.stdioArgs : null) ?? [],
      stdioCwd: dto.cwd ?? (wasStdio ? existing.stdioCwd : null),
      ...(dto.env === undefined && wasStdio
        ? { stdioEnvNames: existing.stdioEnvNames, stdioEnv: existing.stdioEnv }
        : sealStdioEnv(this.secrets.encryptionKey, dto.env ?? {})),
    };
  }

  private async assertUnique(
    em: EntityManager,
    wanted: { id?: string; name: string; slug: string; url: string | null },
  ): Promise<void> {
    const qb = em
      .getRepository(Gateway)
      .createQueryBuilder('gateway')
      .where('(gateway.name = :name OR gateway.slug = :slug OR gateway.url = :url)', wanted);
    if (wanted.id) qb.andWhere('gateway.id <> :id', { id: wanted.id });
    const existing = await qb.getOne();
    if (!existing) return;
    if (existing.name === wanted.name) {
      throw new GatewayException(
        GatewayErrorCode.NameTaken,
        `A gateway named '${wanted.name}' exists already.`,
      );
    }
    if (existing.slug === wanted.slug) {
      throw new GatewayException(
        GatewayErrorCode.SlugTaken,
        `The name '${wanted.name}' gives the slug '${wanted.slug}', which gateway '${existing.name}' has already.`,
      );
    }
    throw new GatewayException(
      GatewayErrorCode.UrlTaken,
      `Gateway '${existing.name}' has the URL ${wanted.url} already.`,
    );
  }

  /**
   * Moves every tool of the gateway to the new slug, refusing if a virtual name would clash or
   * outgrow the MCP tool-name rule, and carries the servers' always-loaded names of those tools
   * along.
   */
  private async reslugTools(
    em: EntityManager,
    gatewayId: string,
    oldSlug: string,
    slug: string,
  ): Promise<void> {
    const { longest } = (await em
      .createQueryBuilder(Tool, 'tool')
      .select('max(length(tool.original_name))::int', 'longest')
      .where('tool.gateway_id = :gatewayId', { gatewayId })
      .getRawOne<{ longest: number | null }>())!;
    const prefix = slug.length + this.names.separator.length;
    if (longest !== null && prefix + longest > TOOL_NAME_MAX_LENGTH) {
      throw new GatewayException(
        GatewayErrorCode.ToolNameTooLong,
        `Renaming to slug '${slug}' would give a tool a name of ${prefix + longest} characters; MCP allows ${TOOL_NAME_MAX_LENGTH}.`,
      );
    }
    const renamed = `(:slug || '${this.names.separator}' || tool.original_name)`;
    const clashes: { name: string }[] = await em
      .createQueryBuilder(Tool, 'tool')
      .innerJoin(Tool, 'other', `${this.names.expression('other')} = ${renamed}`, { slug })
      .select(this.names.expression('other'), 'name')
      .where('tool.gateway_id = :gatewayId', { gatewayId })
      .andWhere('other.gateway_id <> :gatewayId', { gatewayId })
      .orderBy('name')
      .limit(20)
      .getRawMany();
    if (clashes.length > 0) {
      const names = clashes.map((clash) => clash.name);
      throw new GatewayException(
        GatewayErrorCode.ToolNameClash,
        `Renaming to slug '${slug}' would give tools names that other gateways use: ${names.join(', ')}.`,
        { clashes: names },
      );
    }
    await this.renameAlwaysLoaded(em, gatewayId, oldSlug, slug);
    await em.update(Tool, { gatewayId }, { gatewaySlug: slug });
    // A prompt name another gateway uses is refused by its unique index, as a tool clash.
    for (const entity of [Prompt, Resource, ResourceTemplate])
      await em.update(entity, { gatewayId }, { gatewaySlug: slug });
  }

  /**
   * Servers keep their always-loaded tools by virtual name, the name clients and operators use;
   * renaming them with the tools keeps those tools listed. Runs while the tools have the old slug.
   */
  private async renameAlwaysLoaded(
    em: EntityManager,
    gatewayId: string,
    oldSlug: string,
    slug: string,
  ): Promise<void> {
    const servers = await em
      .getRepository(Server)
      .createQueryBuilder('server')
      .where('jsonb_array_length(server.tool_search_always_loaded) > 0')
      .getMany();
    if (servers.length === 0) return;
    const qb = em
      .createQueryBuilder(Tool, 'tool')
      .select('tool.original_name', 'originalName')
      .where('tool.gateway_id = :gatewayId', { gatewayId });
    this.names.whereNameIn(qb, [...new Set(servers.flatMap((s) => s.toolSearchAlwaysLoaded))]);
    const renamed = new Map(
      (await qb.getRawMany<{ originalName: string }>()).map(({ originalName }) => [
        this.names.name(oldSlug, originalName),
        this.names.name(slug, originalName),
      ]),
    );
    for (const server of servers) {
      if (!server.toolSearchAlwaysLoaded.some((name) => renamed.has(name))) continue;
      server.toolSearchAlwaysLoaded = server.toolSearchAlwaysLoaded.map(
        (name) => renamed.get(name) ?? name,
      );
      await em.getRepository(Server).save(server);
    }
  }

  /** A transaction whose unique-index races surface as the same conflicts as the pre-checks. */
  private async writing<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (error) {
      const constraint = uniqueViolation(error);
      const code = constraint === null ? undefined : CONSTRAINT_CODES[constraint];
      if (code)
        throw new GatewayException(code, `Conflicts with an existing record (${constraint}).`);
      throw error;
    }
  }
}

/** Where an imported gateway came from: a registry, a server of it, the version and its entry. */
export type RegistryOrigin = Pick<
  Gateway,
  'registryUrl' | 'registryServerName' | 'registryVersion' | 'registryEntry'
>;

/** Refuses a second gateway of one registry server in one team, imports taking turns by a lock. */
async function assertNotImported(
  em: EntityManager,
  origin: RegistryOrigin,
  teamId: string | null,
): Promise<void> {
  const key = `gateway import ${origin.registryUrl} ${origin.registryServerName}`;
  await em.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
  const found = await em.getRepository(Gateway).findOne({
    where: {
      registryUrl: origin.registryUrl ?? IsNull(),
      registryServerName: origin.registryServerName ?? IsNull(),
      teamId: teamId ?? IsNull(),
    },
  });
  if (found)
    throw new GatewayException(
      GatewayErrorCode.ImportedAlready,
      `'${origin.registryServerName}' was imported as gateway '${found.name}' meanwhile: import it again to see what would change.`,
    );
}

type TransportColumns = Pick<
  Gateway,
  | 'transport'
  | 'url'
  | 'stdioCommand'
  | 'stdioArgs'
  | 'stdioCwd'
  | 'stdioEnvNames'
  | 'stdioEnv'
  | OpenApiColumn
>;

type OpenApiColumn = 'openapiUrl' | 'openapiDocument' | 'openapiSelection';

const NO_OPENAPI = { openapiUrl: null, openapiDocument: null, openapiSelection: null } as const;

/**
 * An openapi gateway's description (a URL, or the text, one of them) and selection, as stored.
 * A given text is parsed now, so that what is not OpenAPI 3.x is refused at once; it is validated
 * in full, and its operations built, at the sync that follows.
 */
function openApiColumns(
  dto: GatewayUpdateDto,
  existing: Gateway | null,
): Pick<Gateway, OpenApiColumn> {
  const was = existing?.transport === 'openapi' ? existing : null;
  if (dto.openapiUrl !== undefined && dto.openapiDocument !== undefined)
    throw fieldProblem('openapiDocument', 'give openapiUrl or openapiDocument, not both');
  const given = dto.openapiUrl !== undefined || dto.openapiDocument !== undefined;
  const openapiUrl = given ? (dto.openapiUrl ?? null) : (was?.openapiUrl ?? null);
  const openapiDocument = given ? (dto.openapiDocument ?? null) : (was?.openapiDocument ?? null);
  if (openapiUrl === null && openapiDocument === null)
    throw fieldProblem('openapiUrl', 'an openapi gateway needs openapiUrl or openapiDocument');
  if (dto.openapiDocument !== undefined) {
    try {
      parseDocument(dto.openapiDocument);
    } catch (error) {
      if (error instanceof OpenApiDocumentError)
        throw fieldProblem('openapiDocument', error.message);
      throw error;
    }
  }
  const selection = dto.openapiSelection ?? was?.openapiSelection ?? null;
  return {
    openapiUrl: openapiUrl === null ? null : normaliseUrl(openapiUrl),
    openapiDocument,
    openapiSelection: selection === null ? null : { ...selection },
  };
}

const NO_STDIO = {
  stdioCommand: null,
  stdioArgs: null,
  stdioCwd: null,
  stdioEnvNames: null,
  stdioEnv: null,
} as const;

/**
 * Who may choose where credentials go. A token-exchange gateway sends every caller's own token
 * (one Portico accepts from them, an admin's included) to its token service, so only admins set
 * one. And credentials go only where whoever entered them meant: a non-admin who changes where or
 * how a gateway's requests go (its URL, its transport, an OpenAPI gateway's description, which
 * says what requests go there) enters its credentials again in the same request, so that nobody
 * points a secret they never saw at a server, or an endpoint, of their own.
 */
/** Why a non-admin's move of a gateway that holds credentials is refused (field `auth`). */
export const CREDENTIALS_STAY =
  'the gateway holds credentials: enter them again (auth) to send them to another url, transport or OpenAPI description';

function assertCredentialsStay(
  dto: GatewayUpdateDto,
  existing: Gateway | null,
  columns: TransportColumns,
  scope: TeamScope,
): void {
  if (scope.everything) return;
  if (dto.auth?.type === 'token-exchange')
    throw new AuthException(
      AuthErrorCode.Forbidden,
      "Only admins may set token exchange on a gateway: every caller's own token goes to its token service.",
    );
  if (existing?.authType === undefined || existing.authType === 'none' || dto.auth !== undefined)
    return;
  const moved = (['url', 'transport', 'openapiUrl', 'openapiDocument'] as const).some(
    (column) => columns[column] !== existing[column],
  );
  if (moved) throw fieldProblem('auth', CREDENTIALS_STAY);
}

function fieldProblem(property: string, message: string): RequestValidationException {
  return new RequestValidationException([
    { property, constraints: { transport: message }, children: [] },
  ]);
}

function notFound(id: string): GatewayException {
  return new GatewayException(GatewayErrorCode.NotFound, `Gateway ${id} does not exist.`);
}

/** The URL as it is stored; percent-encoding can lengthen it past what was validated. */
function normaliseUrl(url: string): string {
  const href = new URL(url).href;
  if (href.length > URL_MAX_LENGTH) {
    const message = `url must be at most ${URL_MAX_LENGTH} characters once normalised`;
    throw new RequestValidationException([
      { property: 'url', constraints: { normalisedLength: message }, children: [] },
    ]);
  }
  return href;
}

function credentialsOf(auth: GatewayAuthDto | undefined): GatewayCredentials {
  switch (auth?.type) {
    case undefined:
    case 'none':
      return { type: 'none' };
    case 'bearer':
      return { type: 'bearer', token: auth.token! };
    case 'headers':
      return { type: 'headers', headers: auth.headers! };
    case 'oauth':
      return {
        type: 'oauth',
        mode: auth.mode!,
        ...(auth.clientId ? { clientId: auth.clientId } : {}),
        ...(auth.clientSecret ? { clientSecret: auth.clientSecret } : {}),
        ...(auth.scope ? { scope: auth.scope } : {}),
      };
    case 'token-exchange':
      return {
        type: 'token-exchange',
        tokenUrl: new URL(auth.tokenUrl!).href,
        dialect: auth.dialect ?? 'rfc8693',
        clientId: auth.clientId!,
        ...(auth.clientSecret ? { clientSecret: auth.clientSecret } : {}),
        clientAuth: auth.clientAuth ?? 'client_secret_basic',
        ...(auth.audience ? { audience: auth.audience } : {}),
        ...(auth.resource ? { resource: auth.resource } : {}),
        ...(auth.scope ? { scope: auth.scope } : {}),
        actor: auth.actor ?? false,
      };
  }
}

/**
 * The era pin a write leaves: HTTP+SSE is a 2025 transport, which no 2026-07-28 pin fits, and an
 * OpenAPI service speaks no MCP at all.
 */
function eraPinOf(dto: GatewayUpdateDto, transport: GatewayTransport, current: EraPin): EraPin {
  const pin = dto.eraPin ?? (transport === 'openapi' ? 'auto' : current);
  if (transport === 'sse' && pin === '2026-07-28')
    throw fieldProblem(
      'eraPin',
      "the sse transport is of the 2025 era: eraPin takes 'auto' or '2025'",
    );
  if (transport === 'openapi' && pin !== 'auto')
    throw fieldProblem('eraPin', "an openapi gateway speaks no MCP era: eraPin takes only 'auto'");
  return pin;
}
