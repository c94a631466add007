import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type TeamScope } from '../auth/team-scope';
import { RegistrySettings } from '../config/slices/registry.settings';
import { SecretSettings } from '../config/slices/secrets.settings';
import { RequestValidationException } from '../common/request-validation.exception';
import { headerMapProblem } from '../gateways/dto/gateway-auth.dto';
import { type GatewayCreateDto } from '../gateways/dto/gateway-create.dto';
import { type GatewayUpdateDto } from '../gateways/dto/gateway-update.dto';
import { envMapProblem } from '../gateways/dto/stdio-env';
import { Gateway } from '../gateways/gateway.entity';
import { openCredentials } from '../upstream/upstream-credentials';
import { stdioLaunchOf } from '../upstream/transport/stdio/stdio-process';
import {
  CREDENTIALS_STAY,
  GatewaysService,
  type RegistryOrigin,
} from '../gateways/gateways.service';
import { type McpRegistryImportDto } from './dto/mcp-registry-import.dto';
import { type McpRegistrySearchQueryDto } from './dto/mcp-registry-query.dto';
import {
  type McpRegistryImportResultDto,
  type McpRegistryPageDto,
} from './dto/mcp-registry-response.dto';
import { type GatewayShape, gatewayShapeOf, ImportProblem, type KeptSecrets } from './gateway-plan';
import { importChanges } from './import-diff';
import { McpRegistryErrorCode, McpRegistryException } from './mcp-registry.exception';
import { McpRegistryClient, RegistryFetchError } from './registry-client';
import { type ServerJson, type ServerResponse } from './server-json';

/**
 * Browsing the MCP Registries the operator configured, and turning their entries into gateways.
 * Only configured registries are fetched: a caller names one of them, never a URL of its own.
 */
@Injectable()
export class McpRegistryService {
  constructor(
    private readonly registrySettings: RegistrySettings,
    private readonly secrets: SecretSettings,
    private readonly dataSource: DataSource,
    private readonly gateways: GatewaysService,
  ) {}

  registries(): string[] {
    return [...this.registrySettings.mcpRegistry.registries];
  }

  async search(query: McpRegistrySearchQueryDto): Promise<McpRegistryPageDto> {
    const registry = this.registryOf(query.registry);
    const client = this.client(registry);
    const limit = Math.min(
      query.limit ?? this.registrySettings.mcpRegistry.pageSize,
      this.registrySettings.mcpRegistry.pageSize,
    );
    const base = {
      ...(query.search ? { search: query.search } : {}),
      ...(query.updatedSince ? { updatedSince: query.updatedSince } : {}),
      ...(query.version ? { version: query.version } : {}),
      limit,
    };
    const page = await this.reading(() =>
      query.cursor ? client.list({ ...base, cursor: query.cursor }) : client.walk(base, limit),
    );
    return { registry, servers: page.servers.map(entryOut), nextCursor: page.nextCursor };
  }

  async show(
    registryUrl: string | undefined,
    name: string,
    version = 'latest',
  ): Promise<ServerResponse> {
    const registry = this.registryOf(registryUrl);
    const entry = await this.reading(() => this.client(registry).version(name, version));
    if (!entry)
      throw new McpRegistryException(
        McpRegistryErrorCode.NotFound,
        `The registry ${registry} has no version '${version}' of '${name}'.`,
      );
    return { server: entry.server, _meta: entry._meta ?? {} };
  }

  /**
   * A new gateway from the entry; or, for a server imported before from the same registry, what
   * would change, applied only with `confirm`.
   */
  async import(dto: McpRegistryImportDto, scope: TeamScope): Promise<McpRegistryImportResultDto> {
    const registry = this.registryOf(dto.registry);
    const { server } = await this.show(registry, dto.name, dto.version ?? 'latest');
    const existing = await this.imported(registry, server.name, scope, dto.teamId);
    const choice = {
      ...(dto.remote === undefined ? {} : { remote: dto.remote }),
      ...(dto.package === undefined ? {} : { package: dto.package }),
      ...(dto.variables === undefined ? {} : { variables: dto.variables }),
      ...(dto.headers === undefined ? {} : { headers: dto.headers }),
      ...(dto.env === undefined ? {} : { env: dto.env }),
    };
    if (!existing) {
      const shape = this.shapeOf(server, choice);
      const created = await this.gateways.create(
        {
          ...createFields(shape),
          name: dto.gatewayName ?? defaultName(server),
          ...(dto.teamId === undefined ? {} : { teamId: dto.teamId }),
        },
        scope,
        originOf(registry, server),
      );
      return {
        outcome: 'created',
        changes: [],
        gateway: await this.gateways.get(created.id, scope),
      };
    }
    await this.gateways.manageable(existing.id, scope);
    const shape = this.shapeOf(server, choice, this.storedSecrets(existing));
    const changes = importChanges(
      {
        entry:
          existing.registryEntry === null
            ? { ...server, version: existing.registryVersion ?? '' }
            : (existing.registryEntry as ServerJson),
        transport: existing.transport,
        url: existing.url,
        command: existing.stdioCommand,
        args: existing.stdioArgs,
      },
      server,
      shape,
    );
    const givenSecrets = dto.headers !== undefined || dto.env !== undefined;
    if (changes.length === 0 && !givenSecrets)
      return {
        outcome: 'unchanged',
        changes,
        gateway: await this.gateways.get(existing.id, scope),
      };
    if (!dto.confirm)
      return { outcome: 'changes', changes, gateway: await this.gateways.get(existing.id, scope) };
    await this.gateways
      .update(existing.id, updateFields(shape, existing), scope)
      .catch((error: unknown) => {
        throw inImportTerms(error);
      });
    const updated = await this.gateways.find(existing.id);
    await this.dataSource
      .getRepository(Gateway)
      .save(Object.assign(updated, originOf(registry, server)));
    return { outcome: 'updated', changes, gateway: await this.gateways.get(existing.id, scope) };
  }

  /** A configured registry by URL, or the first; anything else is refused before any fetch. */
  registryOf(url: string | undefined): string {
    const registries = this.registrySettings.mcpRegistry.registries;
    if (registries.length === 0)
      throw new McpRegistryException(
        McpRegistryErrorCode.UnknownRegistry,
        'No MCP Registry is configured: set MCP_REGISTRIES (for example https://registry.modelcontextprotocol.io).',
      );
    if (url === undefined) return registries[0]!;
    const wanted = url.replace(/\/+$/, '');
    if (!registries.includes(wanted))
      throw new McpRegistryException(
        McpRegistryErrorCode.UnknownRegistry,
        `'${wanted.slice(0, 200)}' is not one of the configured registries (${registries.join(', ')}).`,
      );
    return wanted;
  }

  private client(registry: string): McpRegistryClient {
    const { maxBytes, pageSize, maxPages, timeoutMs } = this.registrySettings.mcpRegistry;
    return new McpRegistryClient(registry, { maxBytes, pageSize, maxPages, timeoutMs });
  }

  private async reading<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof RegistryFetchError)
        throw new McpRegistryException(McpRegistryErrorCode.RegistryFailed, error.message);
      throw error;
    }
  }

  private shapeOf(
    server: ServerJson,
    choice: Parameters<typeof gatewayShapeOf>[1],
    kept?: Parameters<typeof gatewayShapeOf>[2],
  ): GatewayShape {
    let shape: GatewayShape;
    try {
      shape = gatewayShapeOf(server, choice, kept);
    } catch (error) {
      if (error instanceof ImportProblem)
        throw new McpRegistryException(McpRegistryErrorCode.ImportRefused, error.message);
      throw error;
    }
    // The entry's fixed values are checked as strictly as an operator's own.
    const problem =
      shape.transport === 'stdio'
        ? shape.env === null
          ? null
          : envMapProblem(shape.env)
        : shape.headers === null || Object.keys(shape.headers).length === 0
          ? null
          : headerMapProblem(shape.headers);
    if (problem !== null) {
      const property = shape.transport === 'stdio' ? 'env' : 'headers';
      throw new RequestValidationException([
        { property, constraints: { entry: `${property} ${problem}` }, children: [] },
      ]);
    }
    return shape;
  }

  /** The headers and environment a gateway holds sealed: a re-import keeps what it is not given. */
  private storedSecrets(gateway: Gateway): KeptSecrets {
    const key = this.secrets.encryptionKey;
    const credentials = openCredentials(key, gateway);
    return {
      headers: credentials.type === 'headers' ? credentials.headers : {},
      env: stdioLaunchOf(key, gateway)?.env ?? {},
    };
  }

  /**
   * The gateway a re-import of the server updates: one this caller may change, in the team the
   * import names (`teamId`, null for global) where it names one. Another team's, or a global one
   * an operator may not change, is none of hers: her import makes her own, and learns nothing of
   * theirs.
   */
  private async imported(
    registry: string,
    serverName: string,
    scope: TeamScope,
    teamId: string | null | undefined,
  ): Promise<Gateway | null> {
    const found = await this.dataSource.getRepository(Gateway).find({
      where: { registryUrl: registry, registryServerName: serverName },
      order: { createdAt: 'ASC' },
      take: 100,
    });
    return (
      found.find(
        (gateway) =>
          scope.canManage(gateway.teamId) && (teamId === undefined || gateway.teamId === teamId),
      ) ?? null
    );
  }
}

function originOf(registry: string, server: ServerJson): RegistryOrigin {
  return {
    registryUrl: registry,
    registryServerName: server.name,
    registryVersion: server.version,
    registryEntry: server,
  };
}

function entryOut(entry: ServerResponse): {
  server: Record<string, unknown>;
  _meta: Record<string, unknown>;
} {
  return { server: entry.server, _meta: entry._meta ?? {} };
}

/** The entry's title, else the last part of its name. */
function defaultName(server: ServerJson): string {
  return (server.title ?? server.name.split('/').at(-1) ?? server.name).slice(0, 200);
}

function createFields(shape: GatewayShape): Omit<GatewayCreateDto, 'name'> {
  if (shape.transport === 'stdio')
    return {
      transport: 'stdio',
      command: shape.command,
      args: shape.args,
      ...(shape.env && Object.keys(shape.env).length > 0 ? { env: shape.env } : {}),
    };
  return {
    transport: shape.transport,
    url: shape.url,
    ...(shape.headers && Object.keys(shape.headers).length > 0
      ? { auth: { type: 'headers' as const, headers: shape.headers } }
      : {}),
  };
}

function updateFields(shape: GatewayShape, existing: Gateway): GatewayUpdateDto {
  if (shape.transport === 'stdio')
    return {
      transport: 'stdio',
      command: shape.command,
      args: shape.args,
      ...(shape.env === null ? {} : { env: shape.env }),
    };
  const auth =
    shape.headers === null
      ? {}
      : Object.keys(shape.headers).length > 0
        ? { auth: { type: 'headers' as const, headers: shape.headers } }
        : existing.authType === 'headers'
          ? { auth: { type: 'none' as const } }
          : {};
  return { transport: shape.transport, url: shape.url, ...auth };
}

/**
 * A gateway's refusal in the import's terms: the credentials an import gives are `headers`, where
 * the gateway's are `auth` (a non-admin whose re-import moves a gateway holding credentials to
 * another URL gives them again: see GatewaysService).
 */
function inImportTerms(error: unknown): unknown {
  if (!(error instanceof RequestValidationException)) return error;
  const moved = error.errors.some(
    (problem) => problem.field === 'auth' && problem.messages.includes(CREDENTIALS_STAY),
  );
  if (!moved) return error;
  return new RequestValidationException([
    {
      property: 'headers',
      constraints: {
        credentials:
          'the gateway holds credentials and this import moves it to another url: give its headers again to send them there',
      },
      children: [],
    },
  ]);
}
