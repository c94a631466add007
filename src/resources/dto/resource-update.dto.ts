import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';

/** What an operator may change on a resource or a resource template. */
export class ResourceUpdateDto {
  @ApiProperty({ description: 'Serve or hide it.' })
  @IsBoolean()
  enabled!: boolean;
}
