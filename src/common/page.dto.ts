import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { Optional } from './validation';

export const MAX_PAGE_SIZE = 500;
const MAX_OFFSET = 2_147_483_647;

export class PageQueryDto {
  @ApiPropertyOptional({
    description: 'Page size.',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: 50,
  })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit: number = 50;

  @ApiPropertyOptional({
    description: 'Number of items to skip.',
    minimum: 0,
    maximum: MAX_OFFSET,
    default: 0,
  })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_OFFSET)
  offset: number = 0;
}

export interface Page<T> {
  items: T[];
  total: number;
}
