import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { ROLES, type Role } from '../../common/roles';
import { Optional } from '../../common/validation';

export const USERNAME_RULE = /^[A-Za-z0-9_.@+-]{1,128}$/;
export const PASSWORD_MIN_LENGTH = 12;

export class UserCreateDto {
  @ApiProperty({
    description: 'Sign-in name: letters, digits and _ . @ + -.',
    example: 'ada',
    maxLength: 128,
  })
  @IsString()
  @Matches(USERNAME_RULE, { message: 'username may hold letters, digits and _ . @ + - only' })
  username!: string;

  @ApiProperty({
    description: `Password, at least ${PASSWORD_MIN_LENGTH} characters; only a scrypt hash is kept.`,
    writeOnly: true,
    minLength: PASSWORD_MIN_LENGTH,
    maxLength: 1024,
  })
  @IsString()
  @MinLength(PASSWORD_MIN_LENGTH)
  @MaxLength(1024)
  password!: string;

  @ApiPropertyOptional({ description: 'Name shown in pages.', maxLength: 200, default: '' })
  @Optional()
  @IsString()
  @MaxLength(200)
  displayName?: string;

  @ApiProperty({ description: 'What the user may do.', enum: ROLES })
  @IsIn(ROLES)
  role!: Role;

  @ApiPropertyOptional({
    description: 'Teams the user belongs to.',
    type: [String],
    format: 'uuid',
    maxItems: 100,
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsUUID(undefined, { each: true })
  teamIds?: string[];
}

export class UserUpdateDto {
  @ApiPropertyOptional({ description: 'New password (local users only).', writeOnly: true })
  @Optional()
  @IsString()
  @MinLength(PASSWORD_MIN_LENGTH)
  @MaxLength(1024)
  password?: string;

  @ApiPropertyOptional({ description: 'Name shown in pages.', maxLength: 200 })
  @Optional()
  @IsString()
  @MaxLength(200)
  displayName?: string;

  @ApiPropertyOptional({ description: 'What the user may do.', enum: ROLES })
  @Optional()
  @IsIn(ROLES)
  role?: Role;

  @ApiPropertyOptional({
    description: 'Replaces the teams the user belongs to.',
    type: [String],
    format: 'uuid',
    maxItems: 100,
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsUUID(undefined, { each: true })
  teamIds?: string[];

  @ApiPropertyOptional({ description: 'A disabled user cannot sign in, and their tokens stop.' })
  @Optional()
  @IsBoolean()
  disabled?: boolean;
}
