import { Module } from '@nestjs/common';
import { ServedPromptsQuery } from './served-prompts.query';
import { PromptWriter } from './prompt.writer';

@Module({
  providers: [PromptWriter, ServedPromptsQuery],
  exports: [PromptWriter, ServedPromptsQuery],
})
export class PromptsModule {}
