import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { Optional } from '../../common/validation';
import { IsEnvMap } from '../../gateways/dto/stdio-env';

/** Turn a registry entry into a gateway, or re-import one imported before. */
export class McpRegistryImportDto {
  @ApiPropertyOptional({
    description: 'Which configured registry; the first by default.',
    maxLength: 2048,
  })
  @Optional()
  @IsString()
  @MaxLength(2048)
  registry?: string;

  @ApiProperty({
    description: "The server's name in the registry (`namespace/name`).",
    example: 'io.github.user/weather',
    maxLength: 200,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @Matches(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, { message: "name must be 'namespace/name'" })
  name!: string;

  @ApiPropertyOptional({
    description: "'latest' (the default) or an exact version.",
    maxLength: 255,
  })
  @Optional()
  @IsString()
  @MaxLength(255)
  version?: string;

  @ApiPropertyOptional({
    description:
      "The gateway's name; by default the entry's title, else the last part of its name.",
    maxLength: 200,
  })
  @Optional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  gatewayName?: string;

  @ApiPropertyOptional({
    description: 'Which remote of the entry (index); the first by default when it has remotes.',
    minimum: 0,
  })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(31)
  remote?: number;

  @ApiPropertyOptional({
    description:
      'Which package of the entry (index), launched as a stdio upstream (admins only, its command on STDIO_COMMANDS).',
    minimum: 0,
  })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(31)
  package?: number;

  @ApiPropertyOptional({
    description: "Values of the remote's `{var}` URL variables.",
    type: 'object',
    additionalProperties: { type: 'string' },
  })
  @Optional()
  @IsObject()
  variables?: Record<string, string>;

  @ApiPropertyOptional({
    description:
      "Values of the remote's headers (required ones must be given): stored encrypted as the gateway's header credentials, never returned. On a re-import, leaving them out keeps the stored ones.",
    type: 'object',
    additionalProperties: { type: 'string' },
    writeOnly: true,
  })
  @Optional()
  @IsObject()
  headers?: Record<string, string>;

  @ApiPropertyOptional({
    description:
      "Values of the package's environment variables (required ones must be given): stored encrypted, never returned. On a re-import, leaving them out keeps the stored ones.",
    type: 'object',
    additionalProperties: { type: 'string' },
    writeOnly: true,
  })
  @Optional()
  @IsEnvMap()
  env?: Record<string, string>;

  @ApiPropertyOptional({
    type: String,
    description: 'The owning team of a new gateway (as for POST /api/v1/gateways).',
    format: 'uuid',
    nullable: true,
  })
  @IsOptional()
  @IsUUID()
  teamId?: string | null;

  @ApiPropertyOptional({
    description:
      'For a server imported before: apply the changes. Without it a re-import only shows what would change.',
    default: false,
  })
  @Optional()
  @IsBoolean()
  confirm?: boolean;
}
