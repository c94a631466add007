import { PartialType } from '@nestjs/swagger';
import { GatewayCreateDto } from './gateway-create.dto';

/** Any subset of the create fields. A new `auth` replaces the stored credentials. */
export class GatewayUpdateDto extends PartialType(GatewayCreateDto, {
  skipNullProperties: false,
}) {}
