import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { NestedObject, Optional } from '../../common/validation';
import { DESCRIPTION_LIMIT, TITLE_LIMIT } from '../../tools/tool-definition';
import { ExposedToolName } from '../../common/tool-name-rule';

/** The MCP tool annotations a server may set; each given one replaces the upstream's. */
export class ToolAnnotationsDto {
  @ApiPropertyOptional({
    description: 'A human-readable title (annotations.title).',
    maxLength: TITLE_LIMIT,
  })
  @Optional()
  @IsString()
  @MaxLength(TITLE_LIMIT)
  title?: string;

  @ApiPropertyOptional({ description: 'The tool does not change its environment.' })
  @Optional()
  @IsBoolean()
  readOnlyHint?: boolean;

  @ApiPropertyOptional({ description: 'The tool may make destructive changes.' })
  @Optional()
  @IsBoolean()
  destructiveHint?: boolean;

  @ApiPropertyOptional({
    description: 'Calling it again with the same arguments changes nothing more.',
  })
  @Optional()
  @IsBoolean()
  idempotentHint?: boolean;

  @ApiPropertyOptional({ description: 'The tool reaches an open world of external entities.' })
  @Optional()
  @IsBoolean()
  openWorldHint?: boolean;
}

/** How a server shows one member tool; each field null or absent keeps the upstream's. */
export class ServerToolOverrideDto {
  @ApiPropertyOptional({
    type: String,
    description:
      'The name the server lists and routes instead of its naming; it must not clash with another member (409 `server.name_clash`).',
    example: 'search_tickets',
    nullable: true,
    maxLength: 128,
  })
  @IsOptional()
  @IsString()
  @ExposedToolName()
  name?: string | null;

  @ApiPropertyOptional({
    type: String,
    description: 'The title shown to people.',
    nullable: true,
    maxLength: TITLE_LIMIT,
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(TITLE_LIMIT)
  title?: string | null;

  @ApiPropertyOptional({
    type: String,
    description: 'The description the model reads.',
    nullable: true,
    maxLength: DESCRIPTION_LIMIT,
  })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_LIMIT)
  description?: string | null;

  @ApiPropertyOptional({
    description: 'Annotations merged over the upstream ones, key by key.',
    type: ToolAnnotationsDto,
    nullable: true,
  })
  @IsOptional()
  @NestedObject(() => ToolAnnotationsDto)
  annotations?: ToolAnnotationsDto | null;
}

export class ServerToolOverrideResponseDto {
  @ApiProperty({ description: 'The virtual server.', format: 'uuid' })
  serverId!: string;

  @ApiProperty({ description: 'The tool.', format: 'uuid' })
  toolId!: string;

  @ApiProperty({
    type: String,
    description: 'Exposed name, or null for the naming’s.',
    nullable: true,
  })
  name!: string | null;

  @ApiProperty({ type: String, description: 'Title, or null for the upstream’s.', nullable: true })
  title!: string | null;

  @ApiProperty({
    type: String,
    description: 'Description, or null for the upstream’s.',
    nullable: true,
  })
  description!: string | null;

  @ApiProperty({
    description: 'Annotations merged over the upstream’s, or null.',
    type: ToolAnnotationsDto,
    nullable: true,
  })
  annotations!: ToolAnnotationsDto | null;

  @ApiProperty({ description: 'Last change.', format: 'date-time' })
  updatedAt!: string;
}

export class ServerToolOverrideListDto {
  @ApiProperty({ description: 'The server’s overrides.', type: [ServerToolOverrideResponseDto] })
  items!: ServerToolOverrideResponseDto[];
}
