import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsString, IsUUID, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/page.dto';
import { Optional } from '../../common/validation';

export class SkillFileDto {
  @ApiProperty({ description: 'The upstream URI of the file.' })
  uri!: string;

  @ApiProperty({ description: 'sha256 of the file’s bytes, `sha256:<hex>`.' })
  digest!: string;

  @ApiProperty({ description: 'The file’s length in bytes.' })
  size!: number;
}

export class SkillResponseDto {
  @ApiProperty({ description: 'The skill’s id in Portico.', format: 'uuid' })
  id!: string;

  @ApiProperty({
    description: 'Canonical name: gateway slug + separator + the skill’s name (what policies see).',
    example: 'docs_pdf-processing',
  })
  name!: string;

  @ApiProperty({ description: 'The skill’s own name (its frontmatter `name`).' })
  originalName!: string;

  @ApiProperty({ description: 'The upstream URI of its SKILL.md.' })
  uri!: string;

  @ApiProperty({
    description: 'The URI a prefixed server shows it under (`<slug>+<uri>`).',
  })
  prefixedUri!: string;

  @ApiProperty({
    description: 'Its frontmatter (untrusted text).',
    type: 'object',
    additionalProperties: true,
  })
  frontmatter!: Record<string, unknown>;

  @ApiProperty({
    description: 'Every file with digest and size, or `"dynamic"`.',
    oneOf: [
      { type: 'array', items: { $ref: '#/components/schemas/SkillFileDto' } },
      { type: 'string', enum: ['dynamic'] },
    ],
  })
  resources!: SkillFileDto[] | 'dynamic';

  @ApiProperty({ description: 'Hash of the manifest as the upstream lists it now.' })
  manifestHash!: string;

  @ApiProperty({
    description: 'The approved manifest hash; null when none is.',
    nullable: true,
    type: String,
  })
  pinnedHash!: string | null;

  @ApiProperty({ description: 'Whether a changed or unapproved manifest keeps it from clients.' })
  held!: boolean;

  @ApiProperty({
    description: 'The approved manifest, to compare a held change against.',
    nullable: true,
    oneOf: [
      { type: 'array', items: { $ref: '#/components/schemas/SkillFileDto' } },
      { type: 'string', enum: ['dynamic'] },
    ],
  })
  pinnedResources!: SkillFileDto[] | 'dynamic' | null;

  @ApiProperty({ description: 'Whether clients may see it.' })
  enabled!: boolean;

  @ApiProperty({ description: 'The gateway whose upstream serves it.', format: 'uuid' })
  gatewayId!: string;

  @ApiProperty({ description: 'That gateway’s slug, which starts the skill’s name.' })
  gatewaySlug!: string;

  @ApiProperty({ description: 'When a sync first stored the skill.', format: 'date-time' })
  createdAt!: string;

  @ApiProperty({
    description:
      'Its last change: a sync that changed its manifest or entry, an approval, or enabling or disabling it (a sync that found it as it was leaves this alone).',
    format: 'date-time',
  })
  updatedAt!: string;
}

export class SkillPageDto {
  @ApiProperty({ description: 'This page of skills.', type: [SkillResponseDto] })
  items!: SkillResponseDto[];

  @ApiProperty({ description: 'How many skills match, on every page.' })
  total!: number;
}

export class SkillListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only skills of this gateway.', format: 'uuid' })
  @Optional()
  @IsUUID()
  gatewayId?: string;

  @ApiPropertyOptional({ description: 'Case-insensitive text in the name.', maxLength: 200 })
  @Optional()
  @IsString()
  @MaxLength(200)
  q?: string;
}

export class SkillUpdateDto {
  @ApiProperty({ description: 'Whether clients may see it.' })
  @IsBoolean()
  enabled!: boolean;
}

export class ServerSkillsDto {
  @ApiProperty({ description: 'The skills the server serves (replaces its list).', type: [String] })
  @IsArray()
  @ArrayMaxSize(10_000)
  @IsUUID('all', { each: true })
  skillIds!: string[];
}

export class ServerSkillsResponseDto {
  @ApiProperty({ description: 'The skills the server serves.', type: [SkillResponseDto] })
  skills!: SkillResponseDto[];
}
