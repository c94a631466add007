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
import { seal, unseal } from '../common/secret-box';
import { type GatewayUpstreamSettings } from '../config/settings/gateway-settings';
import { Team } from '../teams/team.entity';
import type { SyncReport } from '../sync/report/sync-report';
import type { EraPin, ProtocolEra } from '../upstream/eras/protocol-era';
import { type StdioLaunch } from '../upstream/transport/stdio/stdio-process';
import { type OpenApiSelection } from '../upstream/openapi/openapi-selection';
import { type OpenApiSource } from '../upstream/openapi/openapi-documents';
import { type FindingSeverity, type PinningMode } from '../pinning/state/definition-pin';

/** `openapi`: a REST service described by OpenAPI 3.0/3.1, its operations served as tools. */
export const GATEWAY_TRANSPORTS = ['streamable-http', 'sse', 'stdio', 'openapi'] as const;
export type GatewayTransport = (typeof GATEWAY_TRANSPORTS)[number];

/**
 * `token-exchange`: each call carries a token a security token service issued for the upstream in
 * exchange for the caller's own (RFC 8693); the caller's token is never sent upstream.
 */
export const GATEWAY_AUTH_TYPES = ['none', 'bearer', 'headers', 'oauth', 'token-exchange'] as const;
export type GatewayAuthType = (typeof GATEWAY_AUTH_TYPES)[number];

/**
 * Whose OAuth tokens reach an `oauth` upstream: the gateway's one account (an operator connects
 * it), each caller's own account, or Portico itself as a machine client (client credentials).
 */
export const OAUTH_MODES = ['shared', 'per-user', 'client-credentials'] as const;
export type OAuthMode = (typeof OAUTH_MODES)[number];

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

  @Column({ name: 'stdio_args', type: 'jsonb', nullable: true })
  stdioArgs!: string[] | null;

  @Column({ name: 'stdio_cwd', type: 'varchar', length: 1024, nullable: true })
  stdioCwd!: string | null;

  /** The names of the stdio environment variables; their values are sealed in `stdio_env`. */
  @Column({ name: 'stdio_env_names', type: 'jsonb', nullable: true })
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
  @Column({ name: 'openapi_selection', type: 'jsonb', nullable: true })
  openapiSelection!: OpenApiSelection | null;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'varchar', length: 16, default: 'unknown' })
  status!: GatewayStatus;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'last_seen_at', type: 'timestamptz', nullable: true })
  lastSeenAt!: Date | null;

  @Column({ name: 'last_sync_at', type: 'timestamptz', nullable: true })
  lastSyncAt!: Date | null;

  @Column({ name: 'last_sync_report', type: 'jsonb', nullable: true })
  lastSyncReport!: SyncReport | null;

  /** The era Portico speaks with the upstream: `auto` probes it; a pin skips the probe. */
  @Column({ name: 'era_pin', type: 'varchar', length: 16, default: 'auto' })
  eraPin!: EraPin;

  /** Its own timeout, circuit breaker, call cap and retries; null: the replica's settings. */
  @Column({ type: 'jsonb', nullable: true })
  settings!: GatewayUpstreamSettings | null;

  /** Which era of MCP the upstream speaks, as last probed; null: never probed, or moved since. */
  @Column({ name: 'protocol_era', type: 'varchar', length: 16, nullable: true })
  protocolEra!: ProtocolEra | null;

  @Column({ name: 'protocol_version', type: 'varchar', length: 32, nullable: true })
  protocolVersion!: string | null;

  @Column({ name: 'protocol_supported_versions', type: 'jsonb', nullable: true })
  protocolSupportedVersions!: string[] | null;

  /** The extensions a 2026-07-28 upstream declared when probed (Tasks, Skills, …), by name. */
  @Column({ name: 'protocol_extensions', type: 'jsonb', nullable: true })
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
  @Column({ name: 'registry_entry', type: 'jsonb', nullable: true })
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

/** How Portico takes part in OAuth towards an upstream; the tokens themselves are kept apart. */
export interface OAuthSettings {
  type: 'oauth';
  mode: OAuthMode;
  /** A client registered beforehand at the provider; without it Portico registers one (RFC 7591). */
  clientId?: string;
  clientSecret?: string;
  /** Scopes to ask for, space-separated; by default those the upstream advertises. */
  scope?: string;
}

/** The request a token service takes: RFC 8693's, or Microsoft Entra ID's on-behalf-of. */
export const TOKEN_EXCHANGE_DIALECTS = ['rfc8693', 'entra-obo'] as const;
export type TokenExchangeDialect = (typeof TOKEN_EXCHANGE_DIALECTS)[number];

/** How a client authenticates to the token service (RFC 6749 §2.3.1). */
export const TOKEN_CLIENT_AUTHS = ['client_secret_basic', 'client_secret_post'] as const;
export type TokenClientAuth = (typeof TOKEN_CLIENT_AUTHS)[number];

/**
 * Where and how Portico exchanges the caller's token for one meant for the upstream (RFC 8693).
 * Portico is a client of the token service (`clientId`, `clientSecret`); with `actor`, it also
 * states itself as the actor, with a token of its own (client credentials at the same service).
 */
export interface TokenExchangeSettings {
  type: 'token-exchange';
  tokenUrl: string;
  dialect: TokenExchangeDialect;
  clientId: string;
  clientSecret?: string;
  clientAuth: TokenClientAuth;
  /** The upstream's logical name at the token service (`audience`). */
  audience?: string;
  /** The upstream's URI (RFC 8707 `resource`). */
  resource?: string;
  scope?: string;
  actor: boolean;
}

/** Decrypted upstream credentials; only the upstream client ever sees them. */
export type GatewayCredentials =
  | { type: 'none' }
  | { type: 'bearer'; token: string }
  | { type: 'headers'; headers: Record<string, string> }
  | OAuthSettings
  | TokenExchangeSettings;

/** The stored form: the kind in clear, the credentials themselves sealed. */
export interface SealedCredentials {
  authType: GatewayAuthType;
  oauthMode: OAuthMode | null;
  authSecret: string | null;
}

/** The fixed HTTP headers that carry the credentials to the upstream (OAuth's are per request). */
export function credentialHeaders(credentials: GatewayCredentials): Record<string, string> {
  switch (credentials.type) {
    case 'none':
    case 'oauth':
    case 'token-exchange':
      return {};
    case 'bearer':
      return { Authorization: `Bearer ${credentials.token}` };
    case 'headers':
      return { ...credentials.headers };
  }
}

/** The secret values themselves, to keep them out of error messages. */
export function credentialSecrets(credentials: GatewayCredentials): string[] {
  switch (credentials.type) {
    case 'none':
      return [];
    case 'bearer':
      return [credentials.token];
    case 'headers':
      return Object.values(credentials.headers);
    case 'oauth':
    case 'token-exchange':
      return credentials.clientSecret ? [credentials.clientSecret] : [];
  }
}

export function sealCredentials(key: Buffer, credentials: GatewayCredentials): SealedCredentials {
  return {
    authType: credentials.type,
    oauthMode: credentials.type === 'oauth' ? credentials.mode : null,
    authSecret: credentials.type === 'none' ? null : seal(key, JSON.stringify(credentials)),
  };
}

export function openCredentials(
  key: Buffer,
  sealed: Pick<SealedCredentials, 'authType' | 'authSecret'>,
): GatewayCredentials {
  if (sealed.authType === 'none' || sealed.authSecret === null) return { type: 'none' };
  return JSON.parse(unseal(key, sealed.authSecret)) as GatewayCredentials;
}

/** The stored form of a stdio environment: names in clear, values sealed. */
export interface SealedStdioEnv {
  stdioEnvNames: string[] | null;
  stdioEnv: string | null;
}

export function sealStdioEnv(key: Buffer, env: Record<string, string>): SealedStdioEnv {
  const names = Object.keys(env);
  return names.length === 0
    ? { stdioEnvNames: [], stdioEnv: null }
    : { stdioEnvNames: names, stdioEnv: seal(key, JSON.stringify(env)) };
}

/** How a stdio gateway is launched, its environment opened; null for HTTP gateways. */
export function stdioLaunchOf(
  key: Buffer,
  gateway: Pick<Gateway, 'transport' | 'stdioCommand' | 'stdioArgs' | 'stdioCwd' | 'stdioEnv'>,
): StdioLaunch | null {
  if (gateway.transport !== 'stdio' || gateway.stdioCommand === null) return null;
  return {
    command: gateway.stdioCommand,
    args: gateway.stdioArgs ?? [],
    env:
      gateway.stdioEnv === null
        ? {}
        : (JSON.parse(unseal(key, gateway.stdioEnv)) as Record<string, string>),
    cwd: gateway.stdioCwd,
  };
}

/** Where an `openapi` gateway's description comes from; null for other transports. */
export function openApiSourceOf(
  gateway: Pick<Gateway, 'transport'> &
    Partial<Pick<Gateway, 'openapiUrl' | 'openapiDocument' | 'openapiSelection'>>,
): OpenApiSource | null {
  if (gateway.transport !== 'openapi') return null;
  return {
    documentUrl: gateway.openapiUrl ?? null,
    document: gateway.openapiDocument ?? null,
    selection: gateway.openapiSelection ?? {},
  };
}
