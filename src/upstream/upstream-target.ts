import { hash } from 'node:crypto';
import { type GatewayUpstreamSettings } from '../config/settings/gateway-settings';
import { isDeepStrictEqual } from 'node:util';
import { type Gateway, type GatewayTransport } from '../gateways/gateway.entity';
import { type GatewayCredentials } from './upstream-credentials';
import { type EraPin, type EraVerdict } from './eras/protocol-era';
import { type StdioLaunch } from './transport/stdio/stdio-process';
import { type OpenApiSource } from './openapi/openapi-documents';

/** Where and how an upstream is reached, credentials opened. */
export interface UpstreamEndpoint {
  /** Null for stdio. */
  url: string | null;
  transport: GatewayTransport;
  credentials: GatewayCredentials;
  /** How a stdio upstream is launched, environment opened; null for HTTP. */
  stdio: StdioLaunch | null;
  /** The era an operator pinned; `auto`: probed. */
  eraPin: EraPin;
  /** An `openapi` gateway's description and selection; null otherwise. */
  openapi?: OpenApiSource | null;
}

/** An upstream as every part of Portico that talks to one knows it. */
export interface UpstreamTarget {
  gatewayId: string;
  /** For messages: the gateway's slug. */
  slug: string;
  endpoint: UpstreamEndpoint;
  /** The era verdict stored on the gateway, when it was read with it; see UpstreamEras. */
  storedEra?: EraVerdict | null;
  /** Hashes the gateway's upstream fingerprint: what a stored verdict is about. */
  endpointHash?: string;
  /** The gateway's own timeout, breaker, call cap and retries; absent: the replica's. */
  settings?: GatewayUpstreamSettings | null;
}

/** The columns that say how an upstream is reached: when one changes, what was read is stale. */
const ENDPOINT_COLUMNS = [
  'url',
  'transport',
  'authType',
  'authSecret',
  'stdioCommand',
  'stdioArgs',
  'stdioCwd',
  'stdioEnv',
] as const;

/** An `openapi` gateway's: its description and which operations it serves. */
const OPENAPI_COLUMNS = ['openapiUrl', 'openapiDocument', 'openapiSelection'] as const;

type EndpointColumns = Pick<Gateway, (typeof ENDPOINT_COLUMNS)[number]> &
  Partial<Pick<Gateway, (typeof OPENAPI_COLUMNS)[number]>>;

/** With the endpoint, what decides how Portico talks to it: the era an operator pinned. */
type ConnectionColumns = EndpointColumns & Pick<Gateway, 'eraPin'>;

/** What is needed of a gateway to reach its upstream: where, how, its sealed credentials. */
export type UpstreamGateway = Pick<Gateway, 'id' | 'slug' | 'eraPin'> &
  EndpointColumns &
  Partial<
    Pick<
      Gateway,
      | 'protocolEra'
      | 'protocolVersion'
      | 'protocolSupportedVersions'
      | 'protocolExtensions'
      | 'protocolCheckedAt'
      | 'protocolEndpoint'
      | 'settings'
    >
  >;

/**
 * The era verdict stored on a gateway row; null when it was never probed, or was probed when the
 * gateway pointed at another upstream.
 */
export function storedEraOf(gateway: UpstreamGateway): EraVerdict | null {
  if (!gateway.protocolEra || !gateway.protocolCheckedAt) return null;
  if (gateway.protocolEndpoint !== endpointHashOf(gateway)) return null;
  return {
    era: gateway.protocolEra,
    version: gateway.protocolVersion ?? null,
    supportedVersions: gateway.protocolSupportedVersions ?? [],
    ...(gateway.protocolExtensions ? { extensions: gateway.protocolExtensions } : {}),
    checkedAt: gateway.protocolCheckedAt,
  };
}

/**
 * What a stored era verdict is about: the endpoint alone, hashed (it holds sealed credentials,
 * which a hash keeps out of sight). A pin leaves it standing, to be shown beside the pin.
 */
export function endpointHashOf(gateway: EndpointColumns): string {
  return hash('sha256', JSON.stringify(ENDPOINT_COLUMNS.map((column) => gateway[column])), 'hex');
}

/**
 * Identifies how the upstream is reached and spoken to; when it changes, what was read before is
 * stale (a sync's or a watch's late failure included).
 */
export function upstreamFingerprint(gateway: ConnectionColumns): string {
  const columns = ENDPOINT_COLUMNS.map((column): unknown => gateway[column]);
  if (gateway.transport === 'openapi')
    columns.push(...OPENAPI_COLUMNS.map((column) => gateway[column] ?? null));
  return JSON.stringify([...columns, gateway.eraPin]);
}

/** Whether a connection opened for `before` still serves `after` (null: no longer active). */
export function sameTarget(before: UpstreamTarget, after: UpstreamTarget | null): boolean {
  return after !== null && isDeepStrictEqual(before.endpoint, after.endpoint);
}
