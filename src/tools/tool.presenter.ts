import { Injectable } from '@nestjs/common';
import { type Tool as McpTool } from '@modelcontextprotocol/server';
import { pinStateOf } from '../pin-state/pin-response';
import { type ToolResponseDto } from './dto/tool-response.dto';
import { hashedBackendName } from './tool-hash';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { presentToolMeta } from './tool-ui';
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
      meta: presentToolMeta(tool.meta, tool.toolHash, tool.appConfig),
      visibility: toolVisibility(tool.meta),
      toolHash: tool.toolHash,
      enabled: tool.enabled,
      pin: pinStateOf(tool),
      appConfig: tool.appConfig,
      createdAt: tool.createdAt.toISOString(),
      updatedAt: tool.updatedAt.toISOString(),
    };
  }

  /**
   * The tool as MCP clients see it in `tools/list`: the upstream definition under its virtual name,
   * or, for a tool only apps may call, under its hashed backend name alone.
   */
  toMcpTool(tool: Tool): McpTool {
    const meta = presentToolMeta(tool.meta, tool.toolHash, tool.appConfig);
    return {
      name: toolVisibility(tool.meta).includes('model')
        ? this.names.name(tool.gatewaySlug, tool.originalName)
        : hashedBackendName(tool.toolHash, tool.originalName),
      ...(tool.title === null ? {} : { title: tool.title }),
      description: tool.description,
      inputSchema: tool.inputSchema as McpTool['inputSchema'],
      ...(tool.outputSchema === null ? {} : { outputSchema: tool.outputSchema }),
      ...(tool.annotations === null ? {} : { annotations: tool.annotations }),
      ...(meta === null ? {} : { _meta: meta }),
    };
  }
}
