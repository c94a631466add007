import { Module } from '@nestjs/common';
import { PromptPresenter } from './prompt.presenter';
import { PromptWriter } from './prompt.writer';
import { PromptsController } from './prompts.controller';
import { PromptsService } from './prompts.service';
import { ServedPromptsQuery } from './served-prompts.query';

@Module({
  controllers: [PromptsController],
  providers: [PromptWriter, PromptPresenter, PromptsService, ServedPromptsQuery],
  exports: [PromptWriter, PromptPresenter, PromptsService, ServedPromptsQuery],
})
export class PromptsModule {}
