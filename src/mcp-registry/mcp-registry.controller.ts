import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { MinRole } from '../auth/auth.decorators';
import { CurrentScope } from '../auth/current-principal.decorator';
import { TeamScope } from '../auth/team-scope';
import { ApiProblems } from '../common/api-problems.decorator';
import { McpRegistryImportDto } from './dto/mcp-registry-import.dto';
import { McpRegistrySearchQueryDto, McpRegistryShowQueryDto } from './dto/mcp-registry-query.dto';
import {
  McpRegistryEntryDto,
  McpRegistryImportResultDto,
  McpRegistryListDto,
  McpRegistryPageDto,
} from './dto/mcp-registry-response.dto';
import { McpRegistryService } from './mcp-registry.service';

/** Browsing the configured MCP Registries and importing their servers as gateways: operators and admins. */
@ApiTags('mcp-registry')
@MinRole('operator')
@Controller('api/v1/mcp-registry')
export class McpRegistryController {
  constructor(private readonly registry: McpRegistryService) {}

  @Get()
  @ApiOperation({
    summary: 'The MCP Registries Portico may browse and import from (MCP_REGISTRIES)',
  })
  @ApiOkResponse({ type: McpRegistryListDto })
  list(): McpRegistryListDto {
    return { registries: this.registry.registries() };
  }

  @Get('servers')
  @ApiOperation({
    summary: "Search a registry's servers (its GET /v0.1/servers)",
    description:
      "Without a cursor, follows the registry's pages until `limit` entries or MCP_REGISTRY_MAX_PAGES; a cursor that repeats stops with 502. Every answer is bounded (MCP_REGISTRY_MAX_BYTES, MCP_REGISTRY_TIMEOUT_MS) and every entry shape-checked; a registry that breaks a bound is a 502 naming it.",
  })
  @ApiOkResponse({ type: McpRegistryPageDto })
  @ApiProblems(422, 502)
  search(@Query() query: McpRegistrySearchQueryDto): Promise<McpRegistryPageDto> {
    return this.registry.search(query);
  }

  @Get('servers/:name/versions/:version')
  @ApiOperation({ summary: 'One version of a server (or latest) from a registry' })
  @ApiParam({
    name: 'name',
    description: "The server's name, URL-encoded (`io.github.user%2Fweather`).",
  })
  @ApiParam({ name: 'version', description: "'latest' or an exact version." })
  @ApiOkResponse({ type: McpRegistryEntryDto })
  @ApiProblems(404, 422, 502)
  async show(
    @Param('name') name: string,
    @Param('version') version: string,
    @Query() query: McpRegistryShowQueryDto,
  ): Promise<McpRegistryEntryDto> {
    const entry = await this.registry.show(query.registry, name, version);
    return { server: entry.server, _meta: entry._meta ?? {} };
  }

  @Post('import')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Turn a registry entry into a gateway, or show and apply what a re-import changes',
    description:
      "A remote becomes an HTTP gateway (its `{var}` URL filled from `variables`, its headers stored encrypted as header credentials); a package becomes a stdio gateway (npm: `npx -y pkg@version`, pypi: `uvx pkg==version`, nuget: `dnx pkg@version --yes`, oci: `docker run -i --rm image`), which needs an admin and its command on STDIO_COMMANDS (422 `gateway.stdio_command_not_allowed` otherwise). A server imported before from the same registry is not created again: the answer lists what would change (`outcome: 'changes'`), applied with `confirm: true`.",
  })
  @ApiOkResponse({ type: McpRegistryImportResultDto })
  @ApiProblems(400, 403, 404, 409, 422, 502)
  import(
    @Body() dto: McpRegistryImportDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<McpRegistryImportResultDto> {
    return this.registry.import(dto, scope);
  }
}
