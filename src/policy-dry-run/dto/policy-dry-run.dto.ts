import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { PRINCIPAL_SOURCES } from '../../auth/principal';
import { ROLES, type Role } from '../../common/roles';
import { NestedObject, Optional } from '../../common/validation';
import { PolicyCreateDto } from '../../policies/dto/policy-create.dto';

export const DRY_RUN_DECISIONS = ['allow', 'deny', 'approve', 'call-dependent'] as const;
export type DryRunDecision = (typeof DRY_RUN_DECISIONS)[number];

export class PolicyDryRunPrincipalDto {
  @ApiProperty({ description: 'The role to judge.', enum: ROLES })
  @IsIn(ROLES)
  role!: Role;

  @ApiPropertyOptional({ description: 'Its teams, by id.', type: [String], maxItems: 100 })
  @Optional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsUUID('all', { each: true })
  teamIds?: string[];

  @ApiPropertyOptional({ description: '`principal.subject`; default `dry-run`.', maxLength: 300 })
  @Optional()
  @IsString()
  @MaxLength(300)
  subject?: string;

  @ApiPropertyOptional({ description: '`principal.name`; default `dry-run`.', maxLength: 300 })
  @Optional()
  @IsString()
  @MaxLength(300)
  name?: string;

  @ApiPropertyOptional({
    description: '`principal.user`: a user id; default none.',
    format: 'uuid',
  })
  @Optional()
  @IsUUID()
  user?: string;

  @ApiPropertyOptional({
    description: '`principal.token`: a token id; default none.',
    format: 'uuid',
  })
  @Optional()
  @IsUUID()
  token?: string;

  @ApiPropertyOptional({
    description: '`principal.source`; default `session`.',
    enum: PRINCIPAL_SOURCES,
  })
  @Optional()
  @IsIn(PRINCIPAL_SOURCES)
  source?: (typeof PRINCIPAL_SOURCES)[number];
}

export class PolicyDryRunDto {
  @ApiPropertyOptional({
    description: 'Judge this user (a username or a user id), with their role and teams now.',
    maxLength: 300,
  })
  @Optional()
  @IsString()
  @MaxLength(300)
  user?: string;

  @ApiPropertyOptional({
    type: PolicyDryRunPrincipalDto,
    description: 'Or judge a principal described here. One of `user` and `principal` is needed.',
  })
  @Optional()
  @NestedObject(() => PolicyDryRunPrincipalDto)
  principal?: PolicyDryRunPrincipalDto;

  @ApiPropertyOptional({
    type: String,
    description: 'The server whose endpoint to judge; null or absent: `/mcp`.',
    format: 'uuid',
    nullable: true,
  })
  @IsOptional()
  @IsUUID()
  serverId?: string | null;

  @ApiPropertyOptional({
    description:
      'A whole proposed set of policies, judged instead of the stored ones (which are left as they are).',
    type: [PolicyCreateDto],
    maxItems: 500,
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(500)
  @ValidateNested({ each: true })
  @Type(() => PolicyCreateDto)
  policies?: PolicyCreateDto[];

  @ApiPropertyOptional({
    description: 'Only these tools of the scope, by the name it lists them under.',
    type: [String],
    maxItems: 1000,
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @MaxLength(4096, { each: true })
  tools?: string[];

  @ApiPropertyOptional({
    description:
      'Arguments of a call to judge every tool with (at the time of the dry run); absent: each tool is judged as it is listed, and a tool whose policies need the arguments or the time is `call-dependent`.',
    type: 'object',
    additionalProperties: true,
  })
  @Optional()
  @IsObject()
  arguments?: Record<string, unknown>;
}

export class PolicyRefDto {
  @ApiProperty({
    type: String,
    description: 'Its id; null for a proposed policy.',
    format: 'uuid',
    nullable: true,
  })
  id!: string | null;

  @ApiProperty({ description: 'Its name.' })
  name!: string;
}

export class PolicyDryRunToolDto {
  @ApiProperty({
    description:
      'The name the scope lists the tool under; a consolidated tool has one entry per target, as `forecast (target eu-west)`, judged as its member tool.',
  })
  name!: string;

  @ApiProperty({ description: "The tool's gateway." })
  gatewaySlug!: string;

  @ApiProperty({
    description:
      "Whether the principal's `tools/list` lists it (tool search aside): a tool is hidden only when every call of it is denied.",
  })
  listed!: boolean;

  @ApiProperty({
    description:
      'What a call decides; `call-dependent`: it depends on the arguments or the time (the tool is listed).',
    enum: DRY_RUN_DECISIONS,
  })
  decision!: DryRunDecision;

  @ApiProperty({
    type: PolicyRefDto,
    description:
      'The policy that decides (for `call-dependent`, the first that needs the call); null: none matched.',
    nullable: true,
  })
  policy!: PolicyRefDto | null;
}

export class PolicyDryRunSummaryDto {
  @ApiProperty({ description: 'Tools judged.' })
  tools!: number;

  @ApiProperty({ description: 'Tools the principal would see listed (`listed`).' })
  visible!: number;

  @ApiProperty({ description: 'Tools hidden from the principal: every call of them is denied.' })
  hidden!: number;

  @ApiProperty({ description: "Tools whose calls need a person's approval." })
  needingApproval!: number;

  @ApiProperty({ description: 'Tools whose calls depend on the arguments or the time.' })
  callDependent!: number;
}

export class PolicyDryRunPrincipalResultDto {
  @ApiProperty({ description: '`principal.subject`.' })
  subject!: string;

  @ApiProperty({ description: '`principal.name`.' })
  name!: string;

  @ApiProperty({ description: '`principal.role`.', enum: ROLES })
  role!: Role;

  @ApiProperty({ description: '`principal.teams`: team names.', type: [String] })
  teams!: string[];
}

export class PolicyDryRunResultDto {
  @ApiProperty({ type: PolicyDryRunPrincipalResultDto, description: 'Who was judged.' })
  principal!: PolicyDryRunPrincipalResultDto;

  @ApiProperty({ type: String, description: 'The server judged; null: `/mcp`.', nullable: true })
  serverId!: string | null;

  @ApiProperty({ description: 'Whether proposed policies were judged instead of the stored ones.' })
  proposed!: boolean;

  @ApiProperty({ type: [PolicyDryRunToolDto], description: 'Each tool of the scope, in order.' })
  tools!: PolicyDryRunToolDto[];

  @ApiProperty({ type: PolicyDryRunSummaryDto, description: 'The counts.' })
  summary!: PolicyDryRunSummaryDto;
}
