import { ApiProperty } from '@nestjs/swagger';
import {
  GATEWAY_AUTH_TYPES,
  GATEWAY_STATUSES,
  GATEWAY_TRANSPORTS,
  type GatewayAuthType,
  type GatewayStatus,
  type GatewayTransport,
} from '../gateway.entity';
import { SyncReportDto } from '../../sync/dto/sync-report.dto';

export class GatewayResponseDto {
  @ApiProperty({ description: 'Gateway id.', format: 'uuid' })
  id!: string;

  @ApiProperty({ description: 'Display name.' })
  name!: string;

  @ApiProperty({ description: 'Slug of the name; the prefix of its tools’ virtual names.' })
  slug!: string;

  @ApiProperty({
    description: 'Upstream MCP endpoint; null for stdio.',
    nullable: true,
    type: String,
  })
  url!: string | null;

  @ApiProperty({ description: 'Upstream transport.', enum: GATEWAY_TRANSPORTS })
  transport!: GatewayTransport;

  @ApiProperty({
    description: 'For stdio: the program Portico runs; null otherwise.',
    nullable: true,
    type: String,
  })
  command!: string | null;

  @ApiProperty({
    description: 'For stdio: its arguments; null otherwise.',
    nullable: true,
    type: [String],
  })
  args!: string[] | null;

  @ApiProperty({
    description: 'For stdio: its working directory, null for Portico’s own.',
    nullable: true,
    type: String,
  })
  cwd!: string | null;

  @ApiProperty({
    description:
      'For stdio: the names of its environment variables; their values are never returned.',
    nullable: true,
    type: [String],
  })
  envNames!: string[] | null;

  @ApiProperty({
    description:
      'Kind of stored upstream credentials; the credentials themselves are never returned.',
    enum: GATEWAY_AUTH_TYPES,
  })
  authType!: GatewayAuthType;

  @ApiProperty({ description: 'Whether its tools are served.' })
  enabled!: boolean;

  @ApiProperty({ description: 'Upstream health as of the last contact.', enum: GATEWAY_STATUSES })
  status!: GatewayStatus;

  @ApiProperty({
    description: 'The last upstream error, if the last contact failed.',
    nullable: true,
    type: String,
  })
  lastError!: string | null;

  @ApiProperty({
    description: 'When the upstream last answered.',
    nullable: true,
    type: String,
    format: 'date-time',
  })
  lastSeenAt!: string | null;

  @ApiProperty({
    description: 'When the last sync finished.',
    nullable: true,
    type: String,
    format: 'date-time',
  })
  lastSyncAt!: string | null;

  @ApiProperty({ description: 'The report of the last sync.', nullable: true, type: SyncReportDto })
  lastSyncReport!: SyncReportDto | null;

  @ApiProperty({ description: 'Number of stored tools.' })
  toolCount!: number;

  @ApiProperty({
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

export class GatewayPageDto {
  @ApiProperty({ description: 'This page of gateways.', type: [GatewayResponseDto] })
  items!: GatewayResponseDto[];

  @ApiProperty({ description: 'Number of gateways in all pages.' })
  total!: number;
}
