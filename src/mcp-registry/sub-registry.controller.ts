import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsString, Max, MaxLength, Min } from 'class-validator';
import { type Request, type Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { AuthException } from '../auth/auth.exception';
import { type Principal } from '../auth/principal';
import { bearerToken, PrincipalResolver } from '../auth/principal-resolver';
import { ApiProblems } from '../common/api-problems.decorator';
import { Optional } from '../common/validation';
import { type ServerResponse } from './server-json';
import {
  SUB_REGISTRY_PAGE_MAX,
  type SubRegistryPage,
  SubRegistryService,
} from './sub-registry.service';

export class SubRegistryQueryDto {
  @ApiPropertyOptional({
    description: "From a previous answer's metadata.nextCursor.",
    maxLength: 1024,
  })
  @Optional()
  @IsString()
  @MaxLength(1024)
  cursor?: string;

  @ApiPropertyOptional({
    description: 'Entries per page.',
    minimum: 1,
    maximum: SUB_REGISTRY_PAGE_MAX,
    default: 30,
  })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(SUB_REGISTRY_PAGE_MAX)
  limit?: number;

  @ApiPropertyOptional({
    description: "Case-insensitive substring of the entry's name or the server's own name.",
    maxLength: 200,
  })
  @Optional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @ApiPropertyOptional({
    description: 'Only servers changed since this RFC 3339 time.',
    format: 'date-time',
  })
  @Optional()
  @IsISO8601({ strict: true })
  updated_since?: string;

  @ApiPropertyOptional({ description: "'latest' or an exact version.", maxLength: 255 })
  @Optional()
  @IsString()
  @MaxLength(255)
  version?: string;
}

/**
 * Portico's catalogue as an MCP Registry sub-registry, at `/registry` (registry clients append
 * `/v0.1/servers`). Authenticated like the MCP endpoints, with a bearer token (tokens limited to
 * some servers included), and each caller sees only the servers it may use; without a token, 401.
 */
@ApiTags('mcp-registry')
@ApiBearerAuth()
@Public()
@Controller('registry/v0.1/servers')
export class SubRegistryController {
  constructor(
    private readonly registry: SubRegistryService,
    private readonly resolver: PrincipalResolver,
  ) {}

  @Get()
  @ApiOperation({
    summary: "Portico's virtual servers the caller may use, as MCP Registry entries (v0.1)",
    description:
      'Each enabled virtual server the bearer may reach through its MCP endpoint is one entry: name `<reverse DNS of PUBLIC_URL>/<server slug>`, one `streamable-http` remote (its MCP URL), `_meta` with the official status fields and `dev.portico/server`. Paginated by `cursor` and `limit`; `search`, `updated_since`, `version` filter.',
  })
  @ApiOkResponse({
    description: '`{ servers: [{ server, _meta }], metadata: { nextCursor?, count } }`',
  })
  @ApiProblems(401, 422)
  async list(
    @Query() query: SubRegistryQueryDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SubRegistryPage> {
    return this.registry.list(await this.caller(request, response), {
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
      ...(query.limit === undefined ? {} : { limit: query.limit }),
      ...(query.search === undefined ? {} : { search: query.search }),
      ...(query.updated_since === undefined ? {} : { updatedSince: new Date(query.updated_since) }),
      ...(query.version === undefined ? {} : { version: query.version }),
    });
  }

  @Get(':name/versions')
  @ApiOperation({ summary: 'The versions of one server (Portico keeps only the current one)' })
  @ApiParam({ name: 'name', description: 'The entry name, URL-encoded.' })
  @ApiProblems(401, 404)
  async versions(
    @Param('name') name: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SubRegistryPage> {
    return this.registry.versions(await this.caller(request, response), name);
  }

  @Get(':name/versions/:version')
  @ApiOperation({ summary: "One server's entry, by version or 'latest'" })
  @ApiParam({ name: 'name', description: 'The entry name, URL-encoded.' })
  @ApiParam({ name: 'version', description: "'latest' or the exact version." })
  @ApiProblems(401, 404)
  async version(
    @Param('name') name: string,
    @Param('version') version: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ServerResponse> {
    return this.registry.version(await this.caller(request, response), name, version);
  }

  /** Who asks, from the bearer token, as on the MCP endpoints; a 401 says how to authenticate. */
  private async caller(request: Request, response: Response): Promise<Principal> {
    try {
      return await this.resolver.fromBearer(bearerToken(request));
    } catch (error) {
      if (error instanceof AuthException)
        response.setHeader('WWW-Authenticate', 'Bearer realm="portico-registry"');
      throw error;
    }
  }
}
