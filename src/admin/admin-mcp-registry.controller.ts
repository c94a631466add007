import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { MinRole } from '../auth/auth.decorators';
import { isDomainException } from '../common/domain.exception';
import { problemStatusOf } from '../common/problem-statuses';
import { RequestValidationException } from '../common/request-validation.exception';
import { validateDto } from '../common/validation';
import { McpRegistryImportDto } from '../mcp-registry/dto/mcp-registry-import.dto';
import { McpRegistrySearchQueryDto } from '../mcp-registry/dto/mcp-registry-query.dto';
import { type McpRegistryChangeDto } from '../mcp-registry/dto/mcp-registry-response.dto';
import { McpRegistryService } from '../mcp-registry/mcp-registry.service';
import { type ServerResponse } from '../mcp-registry/server-json';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { type FormBody, formCheckbox } from './form-body';
import { pageScope } from './team-field';

/** One string of a query or form, or undefined. */
function field(source: Record<string, unknown>, name: string): string | undefined {
  const value = source[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** `NAME=VALUE` lines of a textarea; a line without `=` is reported, not dropped. */
function valueLines(text: string | undefined, what: string): Record<string, string> | undefined {
  if (text === undefined) return undefined;
  const values: Record<string, string> = {};
  for (const line of text.split(/\r?\n/).slice(0, 64)) {
    if (line.trim() === '') continue;
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`Each line of ${what} must be NAME=VALUE.`);
    values[line.slice(0, at).trim()] = line.slice(at + 1);
  }
  return Object.keys(values).length === 0 ? undefined : values;
}

/** A refusal of the service, as words and a status for the page. */
function refusal(error: unknown): { message: string; status: number } | null {
  if (error instanceof RequestValidationException) return { message: error.message, status: 422 };
  if (isDomainException(error))
    return { message: error.message, status: problemStatusOf(error) ?? 422 };
  return null;
}

/**
 * Browsing the configured MCP Registries and importing from them, as the REST API does:
 * operators and admins (stdio packages need an admin, as any stdio gateway).
 */
@MinRole('operator')
@AdminController('admin/mcp-registry')
export class AdminMcpRegistryController {
  constructor(
    private readonly registry: McpRegistryService,
    private readonly pages: AdminPages,
  ) {}

  @Get()
  async search(
    @Req() request: Request,
    @Res() response: Response,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    const registries = this.registry.registries();
    const wanted = {
      registry: field(query, 'registry'),
      search: field(query, 'search'),
      cursor: field(query, 'cursor'),
    };
    let servers: ServerResponse[] = [];
    let nextCursor: string | null = null;
    let error: string | null = null;
    let status = 200;
    if (registries.length > 0) {
      try {
        const dto = await validateDto(McpRegistrySearchQueryDto, wanted);
        const page = await this.registry.search(dto);
        servers = page.servers as unknown as ServerResponse[];
        nextCursor = page.nextCursor;
      } catch (failure) {
        const refused = refusal(failure);
        if (!refused) throw failure;
        error = refused.message;
        status = refused.status;
      }
    }
    const registry = wanted.registry ?? registries[0] ?? '';
    await this.pages.render(
      request,
      response,
      'mcp-registry',
      {
        title: 'MCP Registry',
        section: 'mcp-registry',
        registries: registries.map((url) => ({ url, selected: url === registry })),
        registry,
        search: wanted.search ?? '',
        servers: servers.map((entry) => ({
          name: entry.server.name,
          version: entry.server.version,
          description: entry.server.description,
          href: `/admin/mcp-registry/entry?${new URLSearchParams({ registry, name: entry.server.name })}`,
        })),
        nextHref: nextCursor
          ? `/admin/mcp-registry?${new URLSearchParams({ registry, search: wanted.search ?? '', cursor: nextCursor })}`
          : null,
        error,
      },
      status,
    );
  }

  @Get('entry')
  async entry(
    @Req() request: Request,
    @Res() response: Response,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    await this.renderEntry(request, response, {
      registry: field(query, 'registry'),
      name: field(query, 'name') ?? '',
      version: field(query, 'version'),
    });
  }

  /** Imports, or shows what a re-import changes until it is confirmed. */
  @Post('import')
  async import(
    @Req() request: Request,
    @Res() response: Response,
    @Body() body: FormBody,
  ): Promise<void> {
    const source = body as Record<string, unknown>;
    const target = {
      registry: field(source, 'registry'),
      name: field(source, 'name') ?? '',
      version: field(source, 'version'),
    };
    try {
      const choice = field(source, 'choice') ?? '';
      const [kind, index] = choice.split(':');
      const dto = await validateDto(McpRegistryImportDto, {
        ...target,
        gatewayName: field(source, 'gatewayName'),
        ...(kind === 'remote' ? { remote: Number(index) } : {}),
        ...(kind === 'package' ? { package: Number(index) } : {}),
        variables: valueLines(field(source, 'variables'), 'URL variables'),
        headers: valueLines(field(source, 'headers'), 'headers'),
        env: valueLines(field(source, 'env'), 'environment variables'),
        confirm: formCheckbox(body, 'confirm'),
      });
      const result = await this.registry.import(dto, pageScope(request));
      if (result.outcome === 'changes') {
        await this.renderEntry(request, response, target, { changes: result.changes });
        return;
      }
      this.pages.redirect(request, response, `/admin/gateways/${result.gateway.id}`, {
        kind: 'success',
        text:
          result.outcome === 'unchanged'
            ? `Gateway '${result.gateway.name}' is up to date with ${target.name}.`
            : `Gateway '${result.gateway.name}' ${result.outcome} from ${target.name}.`,
      });
    } catch (failure) {
      const refused =
        refusal(failure) ??
        (failure instanceof Error && failure.message.startsWith('Each line of')
          ? { message: failure.message, status: 422 }
          : null);
      if (!refused) throw failure;
      await this.renderEntry(request, response, target, { error: refused.message }, refused.status);
    }
  }

  private async renderEntry(
    request: Request,
    response: Response,
    target: { registry?: string | undefined; name: string; version?: string | undefined },
    outcome: { changes?: McpRegistryChangeDto[]; error?: string } = {},
    status = 200,
  ): Promise<void> {
    let entry: ServerResponse | null = null;
    let error = outcome.error ?? null;
    let shownStatus = status;
    try {
      entry = await this.registry.show(target.registry, target.name, target.version ?? 'latest');
    } catch (failure) {
      const refused = refusal(failure);
      if (!refused) throw failure;
      error = refused.message;
      shownStatus = refused.status;
    }
    const server = entry?.server;
    await this.pages.render(
      request,
      response,
      'mcp-registry-entry',
      {
        title: `MCP Registry: ${target.name}`,
        section: 'mcp-registry',
        registry: target.registry ?? this.registry.registries()[0] ?? '',
        name: target.name,
        version: server?.version ?? target.version ?? '',
        server: server ?? null,
        entryJson: server ? JSON.stringify(server, null, 2) : null,
        remotes: (server?.remotes ?? []).map((remote, index) => ({
          ...remote,
          choice: `remote:${index}`,
          headers: remote.headers ?? [],
          variables: Object.entries(remote.variables ?? {}).map(([name, variable]) => ({
            name,
            ...variable,
          })),
        })),
        packages: (server?.packages ?? []).map((pkg, index) => ({
          ...pkg,
          choice: `package:${index}`,
          environmentVariables: pkg.environmentVariables ?? [],
        })),
        changes: outcome.changes ?? null,
        error,
      },
      shownStatus,
    );
  }
}
