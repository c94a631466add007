import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { Optional } from '../../common/validation';

export class TeamCreateDto {
  @ApiProperty({ description: 'Unique display name.', example: 'Platform', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({ description: 'What the team does.', maxLength: 4000, default: '' })
  @Optional()
  @IsString()
  @MaxLength(4000)
  description?: string;
}

export class TeamUpdateDto extends PartialType(TeamCreateDto, { skipNullProperties: false }) {}

export class TeamResponseDto {
  @ApiProperty({ description: 'Team id.', format: 'uuid' })
  id!: string;

  @ApiProperty({ description: 'Display name.' })
  name!: string;

  @ApiProperty({ description: 'What the team does.' })
  description!: string;

  @ApiProperty({ description: 'Number of users in the team.' })
  memberCount!: number;

  @ApiProperty({ description: 'Creation time.', format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ description: 'Last change.', format: 'date-time' })
  updatedAt!: string;
}

export class TeamPageDto {
  @ApiProperty({ description: 'This page of teams.', type: [TeamResponseDto] })
  items!: TeamResponseDto[];

  @ApiProperty({ description: 'Number of teams in all pages.' })
  total!: number;
}
