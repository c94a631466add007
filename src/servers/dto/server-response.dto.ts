import { ApiProperty } from '@nestjs/swagger';
import { CLIENT_ERAS, type ClientEras, SERVER_NAMINGS, type ServerNaming } from '../server.entity';
import { ServerToolSearchDto } from './server-tool-search.dto';

export class ServerResponseDto {
  @ApiProperty({ description: 'Server id.', format: 'uuid' })
  id!: string;

  @ApiProperty({ description: 'Display name.' })
  name!: string;

  @ApiProperty({ description: 'What the server is for.' })
  description!: string;

  @ApiProperty({ description: 'Whether its MCP endpoint serves clients.' })
  enabled!: boolean;

  @ApiProperty({ description: 'Ids of the tools it serves.', type: [String], format: 'uuid' })
  toolIds!: string[];

  @ApiProperty({ description: 'Ids of the resources it serves.', type: [String], format: 'uuid' })
  resourceIds!: string[];

  @ApiProperty({
    description: 'Ids of the resource templates it serves.',
    type: [String],
    format: 'uuid',
  })
  resourceTemplateIds!: string[];

  @ApiProperty({ description: 'Ids of the prompts it serves.', type: [String], format: 'uuid' })
  promptIds!: string[];

  @ApiProperty({
    description:
      'How members are named: `prefixed` (virtual names, `<slug>+<uri>`) or `original` (upstream names and URIs).',
    enum: SERVER_NAMINGS,
  })
  naming!: ServerNaming;

  @ApiProperty({
    description: "Which clients the server takes, by era: 'any', '2025' or '2026-07-28'.",
    enum: CLIENT_ERAS,
  })
  clientEras!: ClientEras;

  @ApiProperty({ description: 'Deferred tool search settings.', type: ServerToolSearchDto })
  toolSearch!: ServerToolSearchDto;

  @ApiProperty({
    description: 'Its Streamable HTTP MCP endpoint.',
    example: 'http://localhost:3000/servers/6f1c…/mcp',
  })
  mcpUrl!: string;

  @ApiProperty({
    type: String,
    description: 'The owning team, or null when global.',
    format: 'uuid',
    nullable: true,
  })
  teamId!: string | null;

  @ApiProperty({ description: 'Creation time.', format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ description: 'Last change.', format: 'date-time' })
  updatedAt!: string;
}

export class ServerPageDto {
  @ApiProperty({ description: 'This page of servers.', type: [ServerResponseDto] })
  items!: ServerResponseDto[];

  @ApiProperty({ description: 'Number of servers in all pages.' })
  total!: number;
}
