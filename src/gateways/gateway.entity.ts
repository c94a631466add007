import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { type GatewayUpstreamSettings } from '../config/settings/gateway-settings';
import { Team } from '../teams/team.entity';
import type { SyncReport } from '../sync-report/sync-report';
import type { EraPin, ProtocolEra } from '../upstream/eras/protocol-era';
import { type GatewayAuthType, type OAuthMode } from '../upstream/upstream-credentials';
import { type OpenApiSelection } from '../upstream/openapi/openapi-selection';
import { type FindingSeverity, type PinningMode } from '../pin-state/definition-pin';
import { STORABLE_JSON, STORABLE_TEXT } from '../common/untrusted-text';

/** `openapi`: a REST service described by OpenAPI 3.0/3.1, its operations served as tools. */
export const GATEWAY_TRANSPORTS = ['streamable-http', 'sse', 'stdio', 'openapi'] as const;
export type GatewayTransport = (typeof GATEWAY_TRANSPORTS)[number];

/** `incompatible`: the upstream answers, but speaks only versions of MCP Portico does not. */
export const GATEWAY_STATUSES = [
  'unknown',
  'healthy',
  'unreachable',
  'failing',
  'incompatible',
] as const;
export type GatewayStatus = (typeof GATEWAY_STATUSES)[number];

@Entity({ name: 'gateway' })
export class Gateway {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'gateway_pk' })
  id!: string;

  @Index('gateway_name_uq', { unique: true })
  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Index('gateway_slug_uq', { unique: true })
  @Column({ type: 'varchar', length: 64 })
  slug!: string;

  /** The upstream endpoint; null for a stdio gateway, which Portico launches instead. */
  @Index('gateway_url_uq', { unique: true })
  @Column({ type: 'varchar', length: 2048, nullable: true })
  url!: string | null;

  @Column({ type: 'varchar', length: 32, default: 'streamable-http' })
  transport!: GatewayTransport;

  @Column({ name: 'auth_type', type: 'varchar', length: 16, default: 'none' })
  authType!: GatewayAuthType;

  /** For `oauth` gateways: whose tokens are used; null otherwise. */
  @Column({ name: 'oauth_mode', type: 'varchar', length: 24, nullable: true })
  oauthMode!: OAuthMode | null;

  /** AES-256-GCM sealed JSON of the upstream credentials; never leaves the service layer. */
  @Column({ name: 'auth_secret', type: 'text', nullable: true })
  authSecret!: string | null;

  /** What a stdio gateway launches, run without a shell; null for HTTP gateways. */
  @Column({ name: 'stdio_command', type: 'varchar', length: 1024, nullable: true })
  stdioCommand!: string | null;

  @Column({ name: 'stdio_args', type: 'jsonb', nullable: true, transformer: STORABLE_JSON })
  stdioArgs!: string[] | null;

  @Column({ name: 'stdio_cwd', type: 'varchar', length: 1024, nullable: true })
  stdioCwd!: string | null;

  /** The names of the stdio environment variables; their values are sealed in `stdio_env`. */
  @Column({ name: 'stdio_env_names', type: 'jsonb', nullable: true, transformer: STORABLE_JSON })
  stdioEnvNames!: string[] | null;

  /** AES-256-GCM sealed JSON of the stdio environment; never leaves the service layer. */
  @Column({ name: 'stdio_env', type: 'text', nullable: true })
  stdioEnv!: string | null;

  /** For `openapi`: where the description is fetched from at each sync; null when stored here. */
  @Column({ name: 'openapi_url', type: 'varchar', length: 2048, nullable: true })
  openapiUrl!: string | null;

  /** For `openapi`: the description itself (JSON or YAML), when given rather than a URL. */
  @Column({ name: 'openapi_document', type: 'text', nullable: true })
  openapiDocument!: string | null;

  /** For `openapi`: which operations become tools; null takes the defaults (GET and HEAD). */
  @Column({ name: 'openapi_selection', type: 'jsonb', nullable: true, transformer: STORABLE_JSON })
  openapiSelection!: OpenApiSelection | null;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'varchar', length: 16, default: 'unknown' })
  status!: GatewayStatus;

  @Column({ name: 'last_error', type: 'text', nullable: true, transformer: STORABLE_TEXT })
  lastError!: string | null;

  @Column({ name: 'last_seen_at', type: 'timestamptz', nullable: true })
  lastSeenAt!: Date | null;

  @Column({ name: 'last_sync_at', type: 'timestamptz', nullable: true })
  lastSyncAt!: Date | null;

  @Column({ name: 'last_sync_report', type: 'jsonb', nullable: true, transformer: STORABLE_JSON })
  lastSyncReport!: SyncReport | null;

  /** The era Portico speaks with the upstream: `auto` probes it; a pin skips the probe. */
  @Column({ name: 'era_pin', type: 'varchar', length: 16, default: 'auto' })
  eraPin!: EraPin;

  /** Its own timeout, circuit breaker, call cap and retries; null: the replica's settings. */
  @Column({ type: 'jsonb', nullable: true, transformer: STORABLE_JSON })
  settings!: GatewayUpstreamSettings | null;

  /** Which era of MCP the upstream speaks, as last probed; null: never probed, or moved since. */
  @Column({ name: 'protocol_era', type: 'varchar', length: 16, nullable: true })
  protocolEra!: ProtocolEra | null;

  @Column({ name: 'protocol_version', type: 'varchar', length: 32, nullable: true })
  protocolVersion!: string | null;

  @Column({
    name: 'protocol_supported_versions',
    type: 'jsonb',
    nullable: true,
    transformer: STORABLE_JSON,
  })
  protocolSupportedVersions!: string[] | null;

  /** The extensions a 2026-07-28 upstream declared when probed (Tasks, Skills, …), by name. */
  @Column({
    name: 'protocol_extensions',
    type: 'jsonb',
    nullable: true,
    transformer: STORABLE_JSON,
  })
  protocolExtensions!: string[] | null;

  /** When the era was probed; the verdict expires UPSTREAM_ERA_TTL_SECONDS later. */
  @Column({ name: 'protocol_checked_at', type: 'timestamptz', nullable: true })
  protocolCheckedAt!: Date | null;

  /** Which upstream the verdict is about (a hash of how it is reached); an edit voids it. */
  @Column({ name: 'protocol_endpoint', type: 'character', length: 64, nullable: true })
  protocolEndpoint!: string | null;

  /** How the gateway pins what its upstream serves (definition-pin.ts). */
  @Column({ type: 'varchar', length: 16, default: 'off' })
  pinning!: PinningMode;

  /** The least severe finding that holds a definition back; null: findings hold nothing back. */
  @Column({ name: 'quarantine_on_finding', type: 'varchar', length: 8, nullable: true })
  quarantineOnFinding!: FindingSeverity | null;

  /** An imported gateway's MCP Registry: the registry's URL; null for one registered by hand. */
  @Index('gateway_registry_idx')
  @Column({ name: 'registry_url', type: 'varchar', length: 2048, nullable: true })
  registryUrl!: string | null;

  /** The imported server's name in that registry (`namespace/name`). */
  @Column({ name: 'registry_server_name', type: 'varchar', length: 200, nullable: true })
  registryServerName!: string | null;

  /** The version of the entry imported last. */
  @Column({ name: 'registry_version', type: 'varchar', length: 255, nullable: true })
  registryVersion!: string | null;

  /** The entry (server.json) as imported last: what a re-import is compared with. */
  @Column({ name: 'registry_entry', type: 'jsonb', nullable: true, transformer: STORABLE_JSON })
  registryEntry!: Record<string, unknown> | null;

  /** The owning team; null: global, managed by admins only. */
  @Index('gateway_team_idx')
  @Column({ name: 'team_id', type: 'uuid', nullable: true })
  teamId!: string | null;

  @ManyToOne(() => Team, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'team_id', foreignKeyConstraintName: 'gateway_team_fk' })
  team?: Team;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** The last edit of the gateway; what Portico observes of its upstream does not move it. */
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
