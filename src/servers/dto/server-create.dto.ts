import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
} from 'class-validator';
import { NestedObject, Optional } from '../../common/validation';
import { CLIENT_ERAS, type ClientEras, SERVER_NAMINGS, type ServerNaming } from '../server.entity';
import { ServerToolSearchDto } from './server-tool-search.dto';

export const MAX_SERVER_TOOLS = 10_000;
/** The most resources, templates or prompts of each kind one server may have. */
export const MAX_SERVER_MEMBERS = 10_000;

/** A list of member ids: documented, unique, UUIDs. */
function MemberIds(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      description,
      type: [String],
      format: 'uuid',
      maxItems: MAX_SERVER_MEMBERS,
    }),
    Optional(),
    IsArray(),
    ArrayMaxSize(MAX_SERVER_MEMBERS),
    ArrayUnique(),
    IsUUID(undefined, { each: true }),
  );
}

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

  @MemberIds('Ids of the resources it serves; replaces them all on update.')
  resourceIds?: string[];

  @MemberIds('Ids of the resource templates it serves; replaces them all on update.')
  resourceTemplateIds?: string[];

  @MemberIds('Ids of the prompts it serves; replaces them all on update.')
  promptIds?: string[];

  @ApiPropertyOptional({
    description:
      'How members are named. `prefixed`: tools and prompts under virtual names (gateway slug, separator, upstream name), resources under `<slug>+<upstream URI>`. `original`: under their upstream names and URIs, which must then not clash (409 `server.name_clash`); app-only tools keep their hashed names, and `toolSearch.alwaysLoaded` still holds virtual names.',
    enum: SERVER_NAMINGS,
    default: 'prefixed',
  })
  @Optional()
  @IsIn(SERVER_NAMINGS)
  naming?: ServerNaming;

  @ApiPropertyOptional({
    description:
      "Which clients the server takes, by the era of MCP they speak: 'any'; '2025' refuses 2026-07-28 requests (HTTP 400, -32022, naming the 2025 versions, so that a client of both eras falls back); '2026-07-28' refuses 2025 sessions the same way.",
    enum: CLIENT_ERAS,
    default: 'any',
  })
  @Optional()
  @IsIn(CLIENT_ERAS)
  clientEras?: ClientEras;

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

  @ApiPropertyOptional({ description: 'Deferred tool search settings.', type: ServerToolSearchDto })
  @Optional()
  @NestedObject(() => ServerToolSearchDto)
  toolSearch?: ServerToolSearchDto;
}
