import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
} from 'class-validator';
import { NestedObject, Optional } from '../../common/validation';
import { ServerToolSearchDto } from './server-tool-search.dto';

export const MAX_SERVER_TOOLS = 10_000;

export class ServerCreateDto {
  @ApiProperty({ description: 'Unique display name.', example: 'Support agent', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({ description: 'What the server is for.', maxLength: 4000, default: '' })
  @Optional()
  @IsString()
  @MaxLength(4000)
  description?: string;

  @ApiPropertyOptional({ description: 'Whether its MCP endpoint serves clients.', default: true })
  @Optional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    description: 'Ids of the tools it serves.',
    type: [String],
    format: 'uuid',
    maxItems: MAX_SERVER_TOOLS,
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_SERVER_TOOLS)
  @ArrayUnique()
  @IsUUID(undefined, { each: true })
  toolIds?: string[];

  @ApiPropertyOptional({
    description:
      'The owning team; null (the default for admins) makes it global, which only admins manage. Operators must name one of their teams, unless they are in exactly one.',
    format: 'uuid',
    nullable: true,
  })
  @IsOptional()
  @IsUUID()
  teamId?: string | null;

  @ApiPropertyOptional({ description: 'Deferred tool search settings.', type: ServerToolSearchDto })
  @Optional()
  @NestedObject(() => ServerToolSearchDto)
  toolSearch?: ServerToolSearchDto;
}
