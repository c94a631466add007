import { ApiProperty } from '@nestjs/swagger';
import { POLICY_EFFECTS, type PolicyEffect } from '../policy.entity';

export class PolicyApprovalResponseDto {
  @ApiProperty({ type: String, description: 'What the person is told.', nullable: true })
  message!: string | null;

  @ApiProperty({ description: 'How long a yes holds, in seconds; 0: ask at every call.' })
  rememberSeconds!: number;
}

export class PolicyResponseDto {
  @ApiProperty({ description: 'Policy id.', format: 'uuid' })
  id!: string;

  @ApiProperty({ description: 'Unique name.' })
  name!: string;

  @ApiProperty({ description: 'What it is for.' })
  description!: string;

  @ApiProperty({ description: 'The CEL expression.' })
  expression!: string;

  @ApiProperty({
    description: 'What it decides when it is the first true one.',
    enum: POLICY_EFFECTS,
  })
  effect!: PolicyEffect;

  @ApiProperty({ description: 'Tried lowest first, then by name.' })
  priority!: number;

  @ApiProperty({
    type: String,
    description: 'The server it holds on, or null for everywhere.',
    format: 'uuid',
    nullable: true,
  })
  serverId!: string | null;

  @ApiProperty({ description: 'Whether it is tried.' })
  enabled!: boolean;

  @ApiProperty({
    type: PolicyApprovalResponseDto,
    description: 'How an `approve` policy asks; null for the others.',
    nullable: true,
  })
  approval!: PolicyApprovalResponseDto | null;

  @ApiProperty({ description: 'Creation time.', format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ description: 'Last change.', format: 'date-time' })
  updatedAt!: string;
}

export class PolicyPageDto {
  @ApiProperty({
    description: 'This page of policies, in the order they are tried.',
    type: [PolicyResponseDto],
  })
  items!: PolicyResponseDto[];

  @ApiProperty({ description: 'Number of policies in all pages.' })
  total!: number;
}
