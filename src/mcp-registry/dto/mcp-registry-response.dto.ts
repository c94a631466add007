import { ApiProperty } from '@nestjs/swagger';
import { GatewayResponseDto } from '../../gateways/dto/gateway-response.dto';

export class McpRegistryListDto {
  @ApiProperty({
    description: 'The registries the operator configured (MCP_REGISTRIES), in order.',
    type: [String],
  })
  registries!: string[];
}

export class McpRegistryEntryDto {
  @ApiProperty({
    description: 'The server.json of the entry (schema 2025-12-11), shape-checked.',
    type: 'object',
    additionalProperties: true,
  })
  server!: Record<string, unknown>;

  @ApiProperty({
    description: "The registry's metadata of the entry (status, publishedAt, isLatest...).",
    type: 'object',
    additionalProperties: true,
  })
  _meta!: Record<string, unknown>;
}

export class McpRegistryPageDto {
  @ApiProperty({ description: 'The registry that answered.' })
  registry!: string;

  @ApiProperty({ description: 'The entries of this page.', type: [McpRegistryEntryDto] })
  servers!: McpRegistryEntryDto[];

  @ApiProperty({
    type: String,
    description: 'The cursor of the next page, null at the end.',
    nullable: true,
  })
  nextCursor!: string | null;
}

export class McpRegistryChangeDto {
  @ApiProperty({
    description:
      'What changes: version, remotes, packages, headers, variables, environmentVariables, transport, url, command or args.',
  })
  field!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Before (names only for headers and variables; never a secret).',
  })
  before!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'After.' })
  after!: string | null;
}

export class McpRegistryImportResultDto {
  @ApiProperty({
    description:
      "'created': a new gateway; 'changes': a re-import that shows what would change (send confirm: true to apply); 'updated': applied; 'unchanged': nothing to apply.",
    enum: ['created', 'changes', 'updated', 'unchanged'],
  })
  outcome!: 'created' | 'changes' | 'updated' | 'unchanged';

  @ApiProperty({
    description: 'What the re-import changes (empty for a new gateway).',
    type: [McpRegistryChangeDto],
  })
  changes!: McpRegistryChangeDto[];

  @ApiProperty({
    description: 'The gateway (as it is now: before the changes when they are only shown).',
    type: GatewayResponseDto,
  })
  gateway!: GatewayResponseDto;
}
