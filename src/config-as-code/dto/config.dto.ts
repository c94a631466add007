import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn } from 'class-validator';
import { Optional } from '../../common/validation';

/**
 * A query flag: `true` or `false` as written; anything else (`1`, `TRUE`, a bare `dryRun`, the
 * flag twice) is left as it came for IsBoolean to refuse, so that a mistyped `dryRun` never
 * applies for real.
 */
const flag = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;

export class ConfigApplyQueryDto {
  @ApiPropertyOptional({
    description: 'Compute the plan and roll it back: nothing is changed.',
    default: false,
  })
  @Optional()
  @Transform(flag)
  @IsBoolean()
  dryRun?: boolean;

  @ApiPropertyOptional({
    description: 'Delete what the document’s sections do not name (absent sections are kept).',
    default: false,
  })
  @Optional()
  @Transform(flag)
  @IsBoolean()
  prune?: boolean;
}

export class ConfigExportQueryDto {
  @ApiPropertyOptional({
    description: 'The answer’s format; `yaml` is the file `portico export` writes.',
    enum: ['json', 'yaml'],
    default: 'json',
  })
  @Optional()
  @IsIn(['json', 'yaml'])
  format?: 'json' | 'yaml';
}

export class ConfigFieldChangeDto {
  @ApiProperty({ description: 'The field that changes.' })
  field!: string;

  @ApiPropertyOptional({ description: 'Its stored value; secrets show as `(secret)`.' })
  from?: unknown;

  @ApiPropertyOptional({ description: 'Its value from the document; secrets show as `(secret)`.' })
  to?: unknown;

  @ApiPropertyOptional({ description: 'Members that join.', type: [String] })
  added?: string[];

  @ApiPropertyOptional({ description: 'Members that leave.', type: [String] })
  removed?: string[];
}

export class ConfigChangeDto {
  @ApiProperty({ description: 'What happens to the record.', enum: ['create', 'update', 'delete'] })
  action!: 'create' | 'update' | 'delete';

  @ApiProperty({ description: 'The kind of record.', example: 'gateway' })
  kind!: string;

  @ApiProperty({ description: 'The record’s name.' })
  name!: string;

  @ApiProperty({ description: 'The fields that change.', type: [ConfigFieldChangeDto] })
  fields!: ConfigFieldChangeDto[];
}

export class ConfigApplyResponseDto {
  @ApiProperty({ description: 'False for a dry run: the plan was computed and rolled back.' })
  applied!: boolean;

  @ApiProperty({ description: 'Every change, in the order applied.', type: [ConfigChangeDto] })
  changes!: ConfigChangeDto[];

  @ApiProperty({ description: 'The changes as a diff: `+` create, `~` update, `-` delete.' })
  plan!: string;

  @ApiProperty({
    description: 'Members that wait for a gateway’s sync, and other things to know.',
    type: [String],
  })
  warnings!: string[];
}
