import { ApiProperty } from '@nestjs/swagger';
import { ROLES, type Role } from '../../common/roles';
import { USER_SOURCES, type UserSource } from '../user.entity';

export class UserResponseDto {
  @ApiProperty({ description: 'User id.', format: 'uuid' })
  id!: string;

  @ApiProperty({ description: 'Sign-in name.' })
  username!: string;

  @ApiProperty({ description: 'Name shown in pages.' })
  displayName!: string;

  @ApiProperty({ description: 'What the user may do.', enum: ROLES })
  role!: Role;

  @ApiProperty({ description: 'Teams the user belongs to.', type: [String], format: 'uuid' })
  teamIds!: string[];

  @ApiProperty({
    description: '`local` (password) or `oidc` (signs in through the identity provider).',
    enum: USER_SOURCES,
  })
  source!: UserSource;

  @ApiProperty({ description: 'Whether the account is the break-glass admin (ADMIN_USERNAME).' })
  breakGlass!: boolean;

  @ApiProperty({ description: 'Whether the user is barred from signing in.' })
  disabled!: boolean;

  @ApiProperty({ type: String, description: 'Last sign-in.', format: 'date-time', nullable: true })
  lastLoginAt!: string | null;

  @ApiProperty({ description: 'Creation time.', format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ description: 'Last change.', format: 'date-time' })
  updatedAt!: string;
}

export class UserPageDto {
  @ApiProperty({ description: 'This page of users.', type: [UserResponseDto] })
  items!: UserResponseDto[];

  @ApiProperty({ description: 'Number of users in all pages.' })
  total!: number;
}
