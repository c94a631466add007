import { Module } from '@nestjs/common';
import { PromptPresenter } from './prompt.presenter';
import { PromptWriter } from './prompt.writer';
import { PromptsController } from './prompts.controller';
import { PromptsService } from './prompts.service';

@Module({
  controllers: [PromptsController],
  providers: [PromptWriter, PromptPresenter, PromptsService],
  exports: [PromptWriter, PromptPresenter, PromptsService],
})
export class PromptsModule {}
