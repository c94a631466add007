import { PartialType } from '@nestjs/swagger';
import { ServerCreateDto } from './server-create.dto';

/** Any subset of the create fields; `toolIds` replaces the membership. */
export class ServerUpdateDto extends PartialType(ServerCreateDto, { skipNullProperties: false }) {}
