import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject } from 'class-validator';
import { Optional } from '../../common/validation';

export class ToolInvokeDto {
  @ApiPropertyOptional({
    description:
      'Arguments as the tool’s inputSchema describes them; passed to the upstream as is.',
    type: 'object',
    additionalProperties: true,
    default: {},
  })
  @Optional()
  @IsObject()
  arguments?: Record<string, unknown>;
}

/** The MCP CallToolResult, as the upstream returned it. */
export class ToolInvokeResultDto {
  @ApiProperty({
    description: 'Content blocks: text, image, audio, resource links and embedded resources.',
    type: 'array',
    items: { type: 'object', additionalProperties: true },
  })
  content!: Record<string, unknown>[];

  @ApiPropertyOptional({
    description: 'Structured result, matching the tool’s outputSchema when it has one.',
    type: 'object',
    additionalProperties: true,
  })
  // An object on the 2025 wire; SDK v2 types it as any JSON value, as the 2026-07-28 revision does.
  structuredContent?: unknown;

  @ApiPropertyOptional({ description: 'True when the tool itself reports a failure.' })
  isError?: boolean;

  @ApiPropertyOptional({
    description: 'The upstream’s `_meta` for this result.',
    type: 'object',
    additionalProperties: true,
  })
  _meta?: Record<string, unknown>;
}
