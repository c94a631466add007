import { Injectable } from '@nestjs/common';
import { type ToolResponseDto } from './dto/tool-response.dto';
import { ToolNameQuery } from './tool-name.query';
import { toolVisibility } from './tool-visibility';
import { type Tool } from './tool.entity';

/** The one mapping from a stored tool to what any API shows of it. */
@Injectable()
export class ToolPresenter {
  constructor(private readonly names: ToolNameQuery) {}

  toResponse(tool: Tool): ToolResponseDto {
    return {
      id: tool.id,
      name: this.names.name(tool.gatewaySlug, tool.originalName),
      originalName: tool.originalName,
      gatewayId: tool.gatewayId,
      gatewaySlug: tool.gatewaySlug,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
      meta: tool.meta,
      visibility: toolVisibility(tool.meta),
      toolHash: tool.toolHash,
      enabled: tool.enabled,
      appConfig: tool.appConfig,
      createdAt: tool.createdAt.toISOString(),
      updatedAt: tool.updatedAt.toISOString(),
    };
  }
}
