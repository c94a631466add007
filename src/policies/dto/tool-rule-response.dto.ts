import { ApiProperty } from '@nestjs/swagger';
import { ROLES, type Role } from '../../auth/roles';
import { RULE_EFFECTS, type RuleEffect } from '../tool-rule.entity';

export class ToolRuleResponseDto {
  @ApiProperty({ description: 'Rule id.', format: 'uuid' })
  id!: string;

  @ApiProperty({ description: 'The tool the rule is about.', format: 'uuid' })
  toolId!: string;

  @ApiProperty({ description: 'Allow or deny.', enum: RULE_EFFECTS })
  effect!: RuleEffect;

  @ApiProperty({
    type: String,
    description: 'The server it holds on, or null for everywhere.',
    format: 'uuid',
    nullable: true,
  })
  serverId!: string | null;

  @ApiProperty({
    type: String,
    description: 'The team it matches, or null.',
    format: 'uuid',
    nullable: true,
  })
  teamId!: string | null;

  @ApiProperty({ description: 'The role it matches, or null.', enum: ROLES, nullable: true })
  role!: Role | null;

  @ApiProperty({ description: 'Creation time.', format: 'date-time' })
  createdAt!: string;
}

export class ToolRulePageDto {
  @ApiProperty({ description: 'This page of rules.', type: [ToolRuleResponseDto] })
  items!: ToolRuleResponseDto[];

  @ApiProperty({ description: 'Number of rules in all pages.' })
  total!: number;
}
