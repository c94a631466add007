import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';

export class PromptUpdateDto {
  @ApiProperty({ description: 'Serve or hide the prompt.' })
  @IsBoolean()
  enabled!: boolean;
}
