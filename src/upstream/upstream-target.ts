import { isDeepStrictEqual } from 'node:util';
import { type GatewayCredentials } from '../gateways/gateway-credentials';
import { type Gateway, type GatewayTransport } from '../gateways/gateway.entity';

/** Where and how an upstream is reached, credentials opened. */
export interface UpstreamEndpoint {
  url: string;
  transport: GatewayTransport;
  credentials: GatewayCredentials;
}

/** An upstream as every part of Portico that talks to one knows it. */
export interface UpstreamTarget {
  gatewayId: string;
  /** For messages: the gateway's slug. */
  slug: string;
  endpoint: UpstreamEndpoint;
}

/** What is needed of a gateway to reach its upstream: where, how, its sealed credentials. */
export type UpstreamGateway = Pick<
  Gateway,
  'id' | 'slug' | 'url' | 'transport' | 'authType' | 'authSecret'
>;

/** Identifies how the upstream is reached; when it changes, what was read before is stale. */
export function upstreamFingerprint(
  gateway: Pick<Gateway, 'url' | 'transport' | 'authType' | 'authSecret'>,
): string {
  return JSON.stringify([gateway.url, gateway.transport, gateway.authType, gateway.authSecret]);
}

/** Whether a connection opened for `before` still serves `after` (null: no longer active). */
export function sameTarget(before: UpstreamTarget, after: UpstreamTarget | null): boolean {
  return after !== null && isDeepStrictEqual(before.endpoint, after.endpoint);
}
