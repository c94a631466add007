import { Injectable } from '@nestjs/common';
import { pinStateOf } from '../pin-state/pin-response';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { type PromptResponseDto } from './dto/prompt-response.dto';
import { type Prompt } from './prompt.entity';

/** The one mapping from a stored prompt to what any API shows of it. */
@Injectable()
export class PromptPresenter {
  constructor(private readonly names: ToolNameQuery) {}

  toResponse(prompt: Prompt): PromptResponseDto {
    return {
      id: prompt.id,
      name: this.names.name(prompt.gatewaySlug, prompt.originalName),
      originalName: prompt.originalName,
      title: prompt.title,
      description: prompt.description,
      arguments: prompt.arguments,
      meta: prompt.meta,
      gatewayId: prompt.gatewayId,
      gatewaySlug: prompt.gatewaySlug,
      enabled: prompt.enabled,
      pin: pinStateOf(prompt),
      createdAt: prompt.createdAt.toISOString(),
      updatedAt: prompt.updatedAt.toISOString(),
    };
  }
}
