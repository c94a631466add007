import { Module } from '@nestjs/common';
import { PromptWriter } from './prompt.writer';

@Module({
  providers: [PromptWriter],
  exports: [PromptWriter],
})
export class PromptsModule {}
