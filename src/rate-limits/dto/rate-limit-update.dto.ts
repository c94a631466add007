import { PartialType } from '@nestjs/swagger';
import { RateLimitCreateDto } from './rate-limit-create.dto';

/** Any subset of the create fields; a changed limit starts counting afresh. */
export class RateLimitUpdateDto extends PartialType(RateLimitCreateDto, {
  skipNullProperties: false,
}) {}
