import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { Optional } from '../../common/validation';

/** A search of a registry's `GET /v0.1/servers`. */
export class McpRegistrySearchQueryDto {
  @ApiPropertyOptional({
    description:
      'Which configured registry (its URL as listed by GET /api/v1/mcp-registry); the first by default.',
    maxLength: 2048,
  })
  @Optional()
  @IsString()
  @MaxLength(2048)
  registry?: string;

  @ApiPropertyOptional({
    description: "Substring of the servers' names, as the registry matches it.",
    maxLength: 200,
  })
  @Optional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @ApiPropertyOptional({
    description: "The registry's cursor from a previous page's nextCursor.",
    maxLength: 1024,
  })
  @Optional()
  @IsString()
  @MaxLength(1024)
  cursor?: string;

  @ApiPropertyOptional({
    description: 'Entries wanted (at most MCP_REGISTRY_PAGE_SIZE).',
    minimum: 1,
    maximum: 100,
  })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({
    description: 'Only entries updated since this RFC 3339 time.',
    format: 'date-time',
  })
  @Optional()
  @IsISO8601({ strict: true })
  updatedSince?: string;

  @ApiPropertyOptional({ description: "'latest' or an exact version.", maxLength: 255 })
  @Optional()
  @IsString()
  @MaxLength(255)
  @Matches(/^[^\s/]+$/, { message: 'version must be one word' })
  version?: string;
}

/** One server of a registry, by name and version. */
export class McpRegistryShowQueryDto {
  @ApiPropertyOptional({
    description: 'Which configured registry; the first by default.',
    maxLength: 2048,
  })
  @Optional()
  @IsString()
  @MaxLength(2048)
  registry?: string;

  @ApiPropertyOptional({
    description: "'latest' (the default) or an exact version.",
    maxLength: 255,
  })
  @Optional()
  @IsString()
  @MaxLength(255)
  version?: string;
}
