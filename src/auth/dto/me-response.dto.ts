import { ApiProperty } from '@nestjs/swagger';
import { ROLES, type Role } from '../../common/roles';

export class MeResponseDto {
  @ApiProperty({ description: 'Stable id of who the token acts for.', example: 'user:6f1c…' })
  subject!: string;

  @ApiProperty({ description: 'A username, or a token’s name.' })
  name!: string;

  @ApiProperty({ type: String, description: 'The user behind it.', format: 'uuid', nullable: true })
  userId!: string | null;

  @ApiProperty({ description: 'What it may do.', enum: ROLES })
  role!: Role;

  @ApiProperty({ description: 'Its teams.', type: [String], format: 'uuid' })
  teamIds!: string[];
}
