import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  IsUrl,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import {
  FINDING_SEVERITIES,
  type FindingSeverity,
  PINNING_MODES,
  type PinningMode,
} from '../../pin-state/definition-pin';
import { GATEWAY_TRANSPORTS, type GatewayTransport } from '../gateway.entity';
import { ERA_PINS, type EraPin } from '../../upstream/eras/protocol-era';
import { NestedObject, Optional } from '../../common/validation';
import { GatewayAuthDto } from './gateway-auth.dto';
import { UPSTREAM_URL_OPTIONS, URL_MAX_LENGTH } from './upstream-url';
import { IsEnvMap } from './stdio-env';
import { OpenApiSelectionDto } from './openapi-selection.dto';
import { DOCUMENT_MAX_BYTES } from '../../upstream/openapi/openapi-document';

/** How many arguments a stdio gateway's command takes, and how long each may be. */
export const MAX_STDIO_ARGS = 64;
export const MAX_STDIO_ARG = 4096;

export { UPSTREAM_URL_OPTIONS, URL_MAX_LENGTH } from './upstream-url';

export class GatewayCreateDto {
  @ApiProperty({
    description: 'Display name; its slug prefixes every tool name of this gateway.',
    example: 'Gateway 1',
    maxLength: 200,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({
    description:
      "The upstream MCP endpoint; for 'openapi' the base URL the operations' paths are appended to. Required unless transport is 'stdio', refused then.",
    example: 'http://127.0.0.1:8080/mcp',
    maxLength: URL_MAX_LENGTH,
  })
  @ValidateIf((dto: GatewayCreateDto) => dto.transport !== 'stdio' || dto.url !== undefined)
  @IsString()
  @MaxLength(URL_MAX_LENGTH)
  @IsUrl(UPSTREAM_URL_OPTIONS, { message: 'url must be an absolute http(s) URL' })
  url?: string;

  @ApiPropertyOptional({
    description:
      "Upstream transport. 'stdio' makes Portico launch `command` itself (admins only, and only commands on STDIO_COMMANDS).",
    enum: GATEWAY_TRANSPORTS,
    default: 'streamable-http',
  })
  @Optional()
  @IsIn(GATEWAY_TRANSPORTS)
  transport?: GatewayTransport;

  @ApiPropertyOptional({
    type: String,
    description:
      'The owning team; null (the default for admins) makes it global, which only admins manage. Operators must name one of their teams, unless they are in exactly one.',
    format: 'uuid',
    nullable: true,
  })
  @IsOptional()
  @IsUUID()
  teamId?: string | null;

  @ApiPropertyOptional({
    description:
      "For 'stdio': the program to run, without a shell. Must be on the STDIO_COMMANDS allowlist exactly as written (for example `npx`).",
    example: 'npx',
    maxLength: 1024,
  })
  @ValidateIf((dto: GatewayCreateDto) => dto.transport === 'stdio' || dto.command !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  command?: string;

  @ApiPropertyOptional({
    description: "For 'stdio': the arguments, each passed as is (never through a shell).",
    example: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/data'],
    type: [String],
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_STDIO_ARGS)
  @IsString({ each: true })
  @MaxLength(MAX_STDIO_ARG, { each: true })
  args?: string[];

  @ApiPropertyOptional({
    description:
      "For 'stdio': environment variables of the process. Secrets: stored encrypted, never returned (only their names are), cut out of errors and logs. A new value replaces all stored ones.",
    type: 'object',
    additionalProperties: { type: 'string' },
    writeOnly: true,
    example: { API_KEY: 'secret' },
  })
  @Optional()
  @IsEnvMap()
  env?: Record<string, string>;

  @ApiPropertyOptional({
    description: "For 'stdio': the working directory, an absolute path; Portico's own by default.",
    example: '/srv/data',
    maxLength: 1024,
  })
  @Optional()
  @IsString()
  @MaxLength(1024)
  @Matches(/^\//, { message: 'cwd must be an absolute path' })
  cwd?: string;

  @ApiPropertyOptional({
    description:
      "How definitions of the upstream's tools, prompts and resource templates are pinned: 'off' serves changes at once (except entries pinned by hand); 'first-sight' pins each definition as first synced and holds a later change back until an operator approves it; 'review' also holds new entries back until approved. A change of this or of quarantineOnFinding judges every current definition at once (scanned again, held back where the threshold says); switching from 'off' then pins every definition not held back.",
    enum: PINNING_MODES,
    default: 'off',
  })
  @Optional()
  @IsIn(PINNING_MODES)
  pinning?: PinningMode;

  @ApiPropertyOptional({
    type: String,
    description:
      "The least severe scanner finding that holds a definition back ('low' holds back on any finding); null: findings are shown but hold nothing back. A change quarantines at once what is served now and the new threshold holds.",
    enum: FINDING_SEVERITIES,
    nullable: true,
    default: null,
  })
  @IsOptional()
  @IsIn(FINDING_SEVERITIES)
  quarantineOnFinding?: FindingSeverity | null;

  @ApiPropertyOptional({
    description:
      "The era of MCP Portico speaks with the upstream: 'auto' probes it (server/discover, then initialize) and keeps the verdict for UPSTREAM_ERA_TTL_SECONDS; '2025' opens sessions with initialize and '2026-07-28' sends stateless requests, without probing. 'sse' is a 2025 transport and takes 'auto' or '2025'. A change reconnects and syncs again.",
    enum: ERA_PINS,
    default: 'auto',
  })
  @Optional()
  @IsIn(ERA_PINS)
  eraPin?: EraPin;

  @ApiPropertyOptional({
    description:
      "For 'openapi': where Portico fetches the OpenAPI 3.0/3.1 description (JSON or YAML) at each sync. Same rules as url (http(s), no credentials in it); redirects are followed only within its origin, and the gateway's credentials are sent only when it shares the base URL's origin. Give this or openapiDocument.",
    example: 'https://petstore3.swagger.io/api/v3/openapi.json',
    maxLength: URL_MAX_LENGTH,
  })
  @Optional()
  @IsString()
  @MaxLength(URL_MAX_LENGTH)
  @IsUrl(UPSTREAM_URL_OPTIONS, { message: 'openapiUrl must be an absolute http(s) URL' })
  openapiUrl?: string;

  @ApiPropertyOptional({
    description:
      "For 'openapi': the OpenAPI 3.0/3.1 description itself (JSON or YAML text), stored on the gateway, instead of openapiUrl.",
    maxLength: DOCUMENT_MAX_BYTES,
  })
  @Optional()
  @IsString()
  @MaxLength(DOCUMENT_MAX_BYTES)
  openapiDocument?: string;

  @ApiPropertyOptional({
    description:
      "For 'openapi': which operations become tools. By default only GET and HEAD operations (read-only).",
    type: OpenApiSelectionDto,
  })
  @Optional()
  @NestedObject(() => OpenApiSelectionDto)
  openapiSelection?: OpenApiSelectionDto;

  @ApiPropertyOptional({ description: 'Upstream credentials (write-only).', type: GatewayAuthDto })
  @Optional()
  @NestedObject(() => GatewayAuthDto)
  auth?: GatewayAuthDto;
}
