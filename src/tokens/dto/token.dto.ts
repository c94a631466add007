import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { ROLES, type Role } from '../../common/roles';
import { Optional } from '../../common/validation';

export const MAX_TOKEN_DAYS = 3650;
export const DEFAULT_TOKEN_DAYS = 90;

export class TokenCreateDto {
  @ApiProperty({ description: 'What the token is for.', example: 'CI deploys', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({
    description:
      'Act with this role (at most the creator’s own), on the creator’s teams. Give this or `serverIds`.',
    enum: ROLES,
  })
  @Optional()
  @IsIn(ROLES)
  role?: Role;

  @ApiPropertyOptional({
    description:
      'Use only the MCP endpoints of these virtual servers (ones the creator may use). Give this or `role`.',
    type: [String],
    format: 'uuid',
    minItems: 1,
    maxItems: 100,
  })
  @Optional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsUUID(undefined, { each: true })
  serverIds?: string[];

  @ApiPropertyOptional({
    description: 'Days until it stops working.',
    minimum: 1,
    maximum: MAX_TOKEN_DAYS,
    default: DEFAULT_TOKEN_DAYS,
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(MAX_TOKEN_DAYS)
  expiresInDays?: number;
}

export class TokenResponseDto {
  @ApiProperty({ description: 'Token id.', format: 'uuid' })
  id!: string;

  @ApiProperty({ description: 'What the token is for.' })
  name!: string;

  @ApiProperty({
    description: 'The start of its value, to tell tokens apart.',
    example: 'pt_x7Qe2a',
  })
  prefix!: string;

  @ApiProperty({ description: 'The role it acts with, or null.', enum: ROLES, nullable: true })
  role!: Role | null;

  @ApiProperty({
    description: 'The servers it is limited to, or null.',
    type: [String],
    format: 'uuid',
    nullable: true,
  })
  serverIds!: string[] | null;

  @ApiProperty({ description: 'The user it acts for.', format: 'uuid' })
  ownerId!: string;

  @ApiProperty({ description: 'That user’s username.' })
  ownerName!: string;

  @ApiProperty({
    type: String,
    description: 'When it stops working.',
    format: 'date-time',
    nullable: true,
  })
  expiresAt!: string | null;

  @ApiProperty({
    type: String,
    description: 'When it was last used (recorded every few seconds).',
    format: 'date-time',
    nullable: true,
  })
  lastUsedAt!: string | null;

  @ApiProperty({ description: 'Creation time.', format: 'date-time' })
  createdAt!: string;
}

export class TokenCreatedDto extends TokenResponseDto {
  @ApiProperty({
    description: 'The token itself: send it as `Authorization: Bearer <token>`. Shown only now.',
  })
  token!: string;
}

export class TokenPageDto {
  @ApiProperty({ description: 'This page of tokens.', type: [TokenResponseDto] })
  items!: TokenResponseDto[];

  @ApiProperty({ description: 'Number of tokens in all pages.' })
  total!: number;
}
