import { PartialType } from '@nestjs/swagger';
import { PolicyCreateDto } from './policy-create.dto';

/** Any subset of the create fields. */
export class PolicyUpdateDto extends PartialType(PolicyCreateDto, {
  skipNullProperties: false,
}) {}
