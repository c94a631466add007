import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsObject,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { Optional } from '../../common/validation';
import { HOOK_NAMES } from '../hooks/hook-registry';

export class ServerHookDto {
  @ApiProperty({ description: 'A built-in hook.', enum: HOOK_NAMES, example: 'secret-redaction' })
  @IsString()
  @MaxLength(64)
  name!: string;

  @ApiPropertyOptional({
    description:
      "The hook's settings. `secret-redaction` takes none; `size-limit` takes `maxArgumentBytes` and/or `maxResultBytes`.",
    type: 'object',
    additionalProperties: true,
    example: { maxResultBytes: 65536 },
  })
  @Optional()
  @IsObject()
  config?: Record<string, unknown>;
}

export class ServerHooksDto {
  @ApiProperty({
    description:
      'The hooks run around every tool call of the server, in this order (before the call, then on its result). A hook that refuses or fails refuses the call.',
    type: [ServerHookDto],
    maxItems: 20,
  })
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => ServerHookDto)
  hooks!: ServerHookDto[];
}
