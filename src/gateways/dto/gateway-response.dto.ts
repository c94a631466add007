import { OpenApiSelectionDto } from './openapi-selection.dto';
import { type OpenApiSelection } from '../../upstream/openapi/openapi-selection';
import { ApiProperty } from '@nestjs/swagger';
import {
  GATEWAY_AUTH_TYPES,
  OAUTH_MODES,
  type OAuthMode,
  type GatewayAuthType,
} from '../../upstream/upstream-credentials';
import {
  GATEWAY_STATUSES,
  GATEWAY_TRANSPORTS,
  type GatewayStatus,
  type GatewayTransport,
} from '../gateway.entity';
import {
  FINDING_SEVERITIES,
  type FindingSeverity,
  PINNING_MODES,
  type PinningMode,
} from '../../pin-state/definition-pin';
import { SyncReportDto } from '../../sync/dto/sync-report.dto';
import { CIRCUIT_STATES, type CircuitState } from '../../upstream/resilience/circuit-breaker';
import {
  ERA_PINS,
  type EraPin,
  PROTOCOL_ERAS,
  type ProtocolEra,
} from '../../upstream/eras/protocol-era';

/** Where an imported gateway came from in an MCP Registry. */
export class GatewayRegistryOriginDto {
  @ApiProperty({
    description: 'The registry it was imported from.',
    example: 'https://registry.modelcontextprotocol.io',
  })
  url!: string;

  @ApiProperty({
    description: "The server's name in the registry.",
    example: 'io.github.user/weather',
  })
  serverName!: string;

  @ApiProperty({ description: 'The version imported last.', example: '1.0.2' })
  version!: string;
}

/** Which era of MCP the upstream speaks, as last probed. */
export class GatewayProtocolDto {
  @ApiProperty({
    description:
      "'2026-07-28': no session, each request is its own exchange; '2025': a session opened with initialize; 'incompatible': only versions Portico does not speak (the gateway's status says which).",
    enum: PROTOCOL_ERAS,
  })
  era!: ProtocolEra;

  @ApiProperty({
    description:
      'The version Portico speaks with it; null when incompatible, or for a 2025 upstream (negotiated per session).',
    nullable: true,
    type: String,
    example: '2026-07-28',
  })
  version!: string | null;

  @ApiProperty({
    description:
      'The versions the upstream said it supports (server/discover, or an unsupported-version error); empty when it did not say.',
    type: [String],
  })
  supportedVersions!: string[];

  @ApiProperty({ description: 'When the era was probed.', format: 'date-time' })
  checkedAt!: string;

  @ApiProperty({
    description:
      'When the verdict expires (UPSTREAM_ERA_TTL_SECONDS after the probe); the next use probes again. A call that fails as if the era changed probes sooner.',
    format: 'date-time',
  })
  expiresAt!: string;
}

/** The state of an OAuth upstream's accounts; never a token. */
export class GatewayOAuthStateDto {
  @ApiProperty({ description: 'Whose tokens reach the upstream.', enum: OAUTH_MODES })
  mode!: OAuthMode;

  @ApiProperty({
    description:
      "Whether the gateway's own account is connected (shared and client-credentials modes; in per-user mode the account sync uses).",
  })
  connected!: boolean;

  @ApiProperty({
    description: "When the gateway's own access token expires.",
    nullable: true,
    type: String,
    format: 'date-time',
  })
  expiresAt!: string | null;

  @ApiProperty({
    description: "When the gateway's own tokens were last obtained or refreshed.",
    nullable: true,
    type: String,
    format: 'date-time',
  })
  refreshedAt!: string | null;

  @ApiProperty({
    description: "Why the last refresh of the gateway's own tokens failed, if it did.",
    nullable: true,
    type: String,
  })
  refreshError!: string | null;

  @ApiProperty({ description: 'Per-user mode: how many users have connected their account.' })
  connectedUsers!: number;

  @ApiProperty({ description: 'Per-user mode: how many users’ last refresh failed.' })
  failedUsers!: number;

  @ApiProperty({
    description: 'The admin page where an account is connected (a person consents there).',
  })
  connectUrl!: string;
}

/**
 * The gateway's circuit breaker on the replica that answered: each replica keeps its own, so
 * replicas may differ for a few calls.
 */
export class GatewayCircuitDto {
  @ApiProperty({
    description:
      'closed: calls go through; open: calls fail at once without reaching the upstream; half-open: one trial call goes through, and its outcome closes or reopens the breaker.',
    enum: CIRCUIT_STATES,
  })
  state!: CircuitState;

  @ApiProperty({
    description:
      'Failures of the upstream in a row (no answer, no connection, HTTP 5xx); UPSTREAM_BREAKER_FAILURES of them open the breaker.',
  })
  failures!: number;

  @ApiProperty({
    description: 'While open, when a trial call will be let through; null otherwise.',
    nullable: true,
    type: String,
    format: 'date-time',
  })
  retryAt!: string | null;

  @ApiProperty({
    description: 'The last failure the breaker counted, if any.',
    nullable: true,
    type: String,
  })
  lastFailure!: string | null;
}

/** Requests to the gateway's upstream now, on the replica that answered. */
export class GatewayLoadDto {
  @ApiProperty({ description: 'Requests running (at most UPSTREAM_MAX_CONCURRENT).' })
  inFlight!: number;

  @ApiProperty({ description: 'Requests waiting for a slot (at most UPSTREAM_QUEUE).' })
  queued!: number;
}

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
    description: 'For openapi: where the description is fetched from at each sync.',
    nullable: true,
    type: String,
  })
  openapiUrl!: string | null;

  @ApiProperty({
    description: 'For openapi: whether the description itself is stored on the gateway.',
  })
  openapiDocumentStored!: boolean;

  @ApiProperty({
    description: 'For openapi: which operations become tools; null takes GET and HEAD only.',
    nullable: true,
    type: OpenApiSelectionDto,
  })
  openapiSelection!: OpenApiSelection | null;

  @ApiProperty({
    description:
      'Kind of stored upstream credentials; the credentials themselves are never returned.',
    enum: GATEWAY_AUTH_TYPES,
  })
  authType!: GatewayAuthType;

  @ApiProperty({
    description: "For 'oauth' gateways, the state of their accounts; null otherwise.",
    nullable: true,
    type: GatewayOAuthStateDto,
  })
  oauth!: GatewayOAuthStateDto | null;

  @ApiProperty({ description: 'Whether its tools are served.' })
  enabled!: boolean;

  @ApiProperty({
    description:
      "Upstream health as of the last contact: 'unreachable', nothing answered (no connection, no answer in time); 'failing', it answered with an HTTP error or with what is not MCP Portico can use; 'incompatible', it answers, but speaks only versions of MCP Portico does not. lastError says what happened.",
    enum: GATEWAY_STATUSES,
  })
  status!: GatewayStatus;

  @ApiProperty({
    description:
      "The era an operator pinned: 'auto' probes; '2025' or '2026-07-28' is spoken without probing (protocol then shows the last probe's verdict, if one was taken).",
    enum: ERA_PINS,
  })
  eraPin!: EraPin;

  @ApiProperty({
    description:
      'Which era of MCP the upstream speaks, as last probed, and when; null until the first probe (and after the upstream is changed).',
    nullable: true,
    type: GatewayProtocolDto,
  })
  protocol!: GatewayProtocolDto | null;

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

  @ApiProperty({
    description: "The upstream's circuit breaker on the replica that answered.",
    type: GatewayCircuitDto,
  })
  circuit!: GatewayCircuitDto;

  @ApiProperty({
    description: 'Requests to the upstream now, on the replica that answered.',
    type: GatewayLoadDto,
  })
  load!: GatewayLoadDto;

  @ApiProperty({ description: 'Number of stored tools.' })
  toolCount!: number;

  @ApiProperty({
    description: 'How definitions are pinned (see the create body).',
    enum: PINNING_MODES,
  })
  pinning!: PinningMode;

  @ApiProperty({
    type: String,
    description: 'The least severe scanner finding that holds a definition back; null: none.',
    enum: FINDING_SEVERITIES,
    nullable: true,
  })
  quarantineOnFinding!: FindingSeverity | null;

  @ApiProperty({
    type: GatewayRegistryOriginDto,
    description: 'The MCP Registry entry it was imported from; null when registered by hand.',
    nullable: true,
  })
  registry!: GatewayRegistryOriginDto | null;

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

export class GatewayPageDto {
  @ApiProperty({ description: 'This page of gateways.', type: [GatewayResponseDto] })
  items!: GatewayResponseDto[];

  @ApiProperty({ description: 'Number of gateways in all pages.' })
  total!: number;
}
