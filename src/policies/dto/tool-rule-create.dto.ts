import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { ROLES, type Role } from '../../auth/roles';
import { RULE_EFFECTS, type RuleEffect } from '../tool-rule.entity';

export class ToolRuleCreateDto {
  @ApiProperty({ description: 'The tool the rule is about.', format: 'uuid' })
  @IsUUID()
  toolId!: string;

  @ApiProperty({
    description:
      '`deny` hides the tool from matching principals and refuses their calls; `allow` makes the tool visible only to principals matching one of its allow rules. A matching deny wins.',
    enum: RULE_EFFECTS,
  })
  @IsIn(RULE_EFFECTS)
  effect!: RuleEffect;

  @ApiPropertyOptional({
    type: String,
    description:
      'The virtual server it holds on; null or absent: everywhere (`/mcp`, every server, REST invoke).',
    format: 'uuid',
    nullable: true,
  })
  @IsOptional()
  @IsUUID()
  serverId?: string | null;

  @ApiPropertyOptional({
    type: String,
    description: 'Matches members of this team; null or absent: any team.',
    format: 'uuid',
    nullable: true,
  })
  @IsOptional()
  @IsUUID()
  teamId?: string | null;

  @ApiPropertyOptional({
    description: 'Matches principals with exactly this role; null or absent: any role.',
    enum: ROLES,
    nullable: true,
  })
  @IsOptional()
  @IsIn(ROLES)
  role?: Role | null;
}
