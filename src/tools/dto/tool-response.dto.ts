import { ApiProperty } from '@nestjs/swagger';
import { TOOL_VISIBILITIES, type ToolVisibility } from '../tool-visibility';
import { PinStateDto } from '../../pin-state/pin-state.dto';
import { ToolAppConfigDto } from './tool-app-config.dto';

export class ToolResponseDto {
  @ApiProperty({ description: 'Tool id.', format: 'uuid' })
  id!: string;

  @ApiProperty({
    description: 'Virtual name: gateway slug + separator + original name.',
    example: 'gateway-1-get_system_time',
  })
  name!: string;

  @ApiProperty({ description: 'The upstream’s own name, used when calling it.' })
  originalName!: string;

  @ApiProperty({ description: 'Id of the gateway that supplies the tool.', format: 'uuid' })
  gatewayId!: string;

  @ApiProperty({ description: 'Slug of that gateway.' })
  gatewaySlug!: string;

  @ApiProperty({ description: 'Upstream display title.', nullable: true, type: String })
  title!: string | null;

  @ApiProperty({ description: 'Upstream description (untrusted text).' })
  description!: string;

  @ApiProperty({
    description: 'JSON Schema of the arguments.',
    type: 'object',
    additionalProperties: true,
  })
  inputSchema!: Record<string, unknown>;

  @ApiProperty({
    description: 'JSON Schema of structured results.',
    nullable: true,
    type: 'object',
    additionalProperties: true,
  })
  outputSchema!: Record<string, unknown> | null;

  @ApiProperty({
    description: 'Upstream annotations (hints).',
    nullable: true,
    type: 'object',
    additionalProperties: true,
  })
  annotations!: Record<string, unknown> | null;

  @ApiProperty({
    description:
      'Upstream `_meta`, with `ui.resourceUri` rewritten to Portico’s per-tool resource.',
    nullable: true,
    type: 'object',
    additionalProperties: true,
  })
  meta!: Record<string, unknown> | null;

  @ApiProperty({
    description: 'Who may use the tool (`_meta.ui.visibility`; absent means both).',
    enum: TOOL_VISIBILITIES,
    isArray: true,
  })
  visibility!: ToolVisibility[];

  @ApiProperty({
    description:
      'First 12 hex of sha256(gatewayId + NUL + originalName); apps call `<toolHash>_<originalName>`.',
    example: '3f2a9c1b0d4e',
  })
  toolHash!: string;

  @ApiProperty({ description: 'Whether the tool is served.' })
  enabled!: boolean;

  @ApiProperty({
    description:
      'The pin of its definition: approved hash, current hash, and whether it is held back (not served) until an operator decides.',
    type: PinStateDto,
  })
  pin!: PinStateDto;

  @ApiProperty({
    description: 'Operator-set MCP Apps settings.',
    nullable: true,
    type: ToolAppConfigDto,
  })
  appConfig!: ToolAppConfigDto | null;

  @ApiProperty({ description: 'When the tool was first stored.', format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ description: 'Last change.', format: 'date-time' })
  updatedAt!: string;
}

export class ToolPageDto {
  @ApiProperty({ description: 'This page of tools.', type: [ToolResponseDto] })
  items!: ToolResponseDto[];

  @ApiProperty({ description: 'Number of matching tools in all pages.' })
  total!: number;
}
