import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { ExposedToolName } from '../../common/tool-name-rule';
import { Optional } from '../../common/validation';
import { DESCRIPTION_LIMIT } from '../../tools/tool-definition';

/** How many targets one consolidated tool may have. */
export const MEMBER_LIMIT = 64;
/** How many virtual servers one request may put it in. */
export const SERVER_LIMIT = 256;
/** A target's label: what the client passes as `target`. */
export const TARGET_RULE = /^[A-Za-z0-9_.-]{1,64}$/;

export class ConsolidatedMemberDto {
  @ApiProperty({
    description:
      'The label the client passes as `target` to reach this member, such as `eu-west`; unique within the tool.',
    example: 'eu-west',
    maxLength: 64,
  })
  @IsString()
  @Matches(TARGET_RULE, { message: 'target must match ^[A-Za-z0-9_.-]{1,64}$' })
  target!: string;

  @ApiProperty({ description: 'The id of the gateway tool this target calls.', format: 'uuid' })
  @IsUUID()
  toolId!: string;
}

export class ConsolidatedToolCreateDto {
  @ApiProperty({
    description:
      'The name clients see; it must not be the virtual name of a tool or the name of another consolidated tool (409 `consolidated_tool.name_taken`).',
    example: 'weather-forecast',
    maxLength: 128,
  })
  @IsString()
  @ExposedToolName()
  name!: string;

  @ApiPropertyOptional({
    description: "What clients read about the tool; absent takes the first member's description.",
    maxLength: DESCRIPTION_LIMIT,
  })
  @Optional()
  @IsString()
  @MaxLength(DESCRIPTION_LIMIT)
  description?: string;

  @ApiProperty({
    description:
      'The targets, each a gateway tool; their input schemas must be the same (422 `consolidated_tool.schema_mismatch` names the difference).',
    type: [ConsolidatedMemberDto],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MEMBER_LIMIT)
  @ValidateNested({ each: true })
  @Type(() => ConsolidatedMemberDto)
  members!: ConsolidatedMemberDto[];

  @ApiPropertyOptional({
    description: 'The virtual servers that include the tool (`/mcp` always does).',
    type: [String],
    format: 'uuid',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(SERVER_LIMIT)
  @IsUUID('all', { each: true })
  serverIds?: string[];
}

/** Each field given replaces the stored one; members and servers are replaced as wholes. */
export class ConsolidatedToolUpdateDto {
  @ApiPropertyOptional({ description: 'The name clients see.', maxLength: 128 })
  @Optional()
  @IsString()
  @ExposedToolName()
  name?: string;

  @ApiPropertyOptional({
    description: 'What clients read about the tool.',
    maxLength: DESCRIPTION_LIMIT,
  })
  @Optional()
  @IsString()
  @MaxLength(DESCRIPTION_LIMIT)
  description?: string;

  @ApiPropertyOptional({
    description:
      'The targets, replacing the stored ones; their schemas must match, and become the shared schema.',
    type: [ConsolidatedMemberDto],
  })
  @Optional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MEMBER_LIMIT)
  @ValidateNested({ each: true })
  @Type(() => ConsolidatedMemberDto)
  members?: ConsolidatedMemberDto[];

  @ApiPropertyOptional({
    description: 'The virtual servers that include the tool, replacing the stored ones.',
    type: [String],
    format: 'uuid',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(SERVER_LIMIT)
  @IsUUID('all', { each: true })
  serverIds?: string[];
}

export class ConsolidatedMemberResponseDto {
  @ApiProperty({ description: 'The label clients pass as `target`.' })
  target!: string;

  @ApiProperty({ description: 'The gateway tool this target calls.', format: 'uuid' })
  toolId!: string;

  @ApiProperty({ description: "The gateway tool's virtual name." })
  toolName!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "Where the member's input schema now differs from the shared one (a sync brought the change), or null. A drifted member is withheld from clients until its schema matches again or the tool is saved with new members.",
  })
  drift!: string | null;
}

export class ConsolidatedToolResponseDto {
  @ApiProperty({ description: 'The id.', format: 'uuid' })
  id!: string;

  @ApiProperty({ description: 'The name clients see.' })
  name!: string;

  @ApiProperty({ description: 'What clients read about the tool.' })
  description!: string;

  @ApiProperty({
    description: "The members' shared input schema; clients see it with a required `target`.",
    type: 'object',
    additionalProperties: true,
  })
  inputSchema!: Record<string, unknown>;

  @ApiProperty({ description: 'The targets, by label.', type: [ConsolidatedMemberResponseDto] })
  members!: ConsolidatedMemberResponseDto[];

  @ApiProperty({ description: 'The virtual servers that include it.', type: [String] })
  serverIds!: string[];

  @ApiProperty({ description: 'When it was created.' })
  createdAt!: Date;

  @ApiProperty({ description: 'When it was last changed.' })
  updatedAt!: Date;
}

export class ConsolidatedToolListDto {
  @ApiProperty({
    description: 'Every consolidated tool, by name.',
    type: [ConsolidatedToolResponseDto],
  })
  items!: ConsolidatedToolResponseDto[];
}
