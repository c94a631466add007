import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { NestedObject, Optional } from '../../common/validation';
import { EXPRESSION_MAX_LENGTH } from '../cel-expression';
import { POLICY_EFFECTS, type PolicyEffect } from '../policy.entity';

/** The longest a remembered approval may hold: 30 days. */
export const LONGEST_REMEMBER_SECONDS = 30 * 24 * 3600;
export const PRIORITY_RANGE = 1_000_000;

export class PolicyApprovalDto {
  @ApiPropertyOptional({
    type: String,
    description: "What the person asked to approve is told; null or absent: the policy's name.",
    maxLength: 1000,
    nullable: true,
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  message?: string | null;

  @ApiPropertyOptional({
    description:
      'How long a yes holds for the same principal, tool and arguments, in seconds; 0 asks at every call.',
    minimum: 0,
    maximum: LONGEST_REMEMBER_SECONDS,
    default: 0,
  })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(LONGEST_REMEMBER_SECONDS)
  rememberSeconds?: number;
}

export class PolicyCreateDto {
  @ApiProperty({
    description: 'Unique name; it breaks ties of priority (in code-point order).',
    maxLength: 200,
    example: 'deny-destructive-to-contractors',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Matches(/^\S(.*\S)?$/s, { message: 'name must not start or end with white space' })
  name!: string;

  @ApiPropertyOptional({ description: 'What the policy is for, for people.', maxLength: 2000 })
  @Optional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @ApiProperty({
    description:
      "A CEL expression that gives a bool, over `principal` {subject, name, user, role, teams, teamIds, token, source}, `tool` {id, name (the canonical virtual name on every endpoint and route), listedName (the name this endpoint lists), originalName, gateway, title, annotations (the upstream's, MCP's standard ones null when not given; an override only makes them more cautious), hash, pinnedHash}, `args` (the call's arguments) and `now` (a timestamp). A policy reading `args` or `now` is decided at the call. `matches(text, pattern)` runs on RE2; loops (all/exists/…) may not nest nor read `args` in their body. Its worst case on the largest arguments a policy may read (10,000 values, 100,000 characters) must fit one evaluation's budget, else it is refused, saying where and why. An evaluation that fails refuses the call (guard optional arguments with `has(args.x)`).",
    maxLength: EXPRESSION_MAX_LENGTH,
    example: '"contractors" in principal.teams && tool.annotations.destructiveHint == true',
  })
  @IsString()
  @MaxLength(EXPRESSION_MAX_LENGTH)
  expression!: string;

  @ApiProperty({
    description:
      'What the first true policy decides: `allow` (the call goes ahead), `deny` (the tool is as unknown as a missing one), `approve` (a person must approve the call).',
    enum: POLICY_EFFECTS,
  })
  @IsIn(POLICY_EFFECTS)
  effect!: PolicyEffect;

  @ApiPropertyOptional({
    description: 'Policies are tried by priority, lowest first, then by name.',
    minimum: -PRIORITY_RANGE,
    maximum: PRIORITY_RANGE,
    default: 0,
  })
  @Optional()
  @IsInt()
  @Min(-PRIORITY_RANGE)
  @Max(PRIORITY_RANGE)
  priority?: number;

  @ApiPropertyOptional({
    type: String,
    description:
      'The virtual server whose endpoint it holds on; null or absent: everywhere (`/mcp`, every server, REST invoke).',
    format: 'uuid',
    nullable: true,
  })
  @IsOptional()
  @IsUUID()
  serverId?: string | null;

  @ApiPropertyOptional({ description: 'A disabled policy is kept but not tried.', default: true })
  @Optional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    type: PolicyApprovalDto,
    description: 'How an `approve` policy asks; only for `approve`.',
    nullable: true,
  })
  @IsOptional()
  @NestedObject(() => PolicyApprovalDto)
  approval?: PolicyApprovalDto | null;
}
