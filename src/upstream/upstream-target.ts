import { isDeepStrictEqual } from 'node:util';
import { type GatewayCredentials } from '../gateways/gateway-credentials';
import { type Gateway, type GatewayTransport } from '../gateways/gateway.entity';
import { type StdioLaunch } from './stdio/stdio-process';

/** Where and how an upstream is reached, credentials opened. */
export interface UpstreamEndpoint {
  /** Null for stdio. */
  url: string | null;
  transport: GatewayTransport;
  credentials: GatewayCredentials;
  /** How a stdio upstream is launched, environment opened; null for HTTP. */
  stdio: StdioLaunch | null;
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
  | 'id'
  | 'slug'
  | 'url'
  | 'transport'
  | 'authType'
  | 'authSecret'
  | 'stdioCommand'
  | 'stdioArgs'
  | 'stdioCwd'
  | 'stdioEnv'
>;

/** Identifies how the upstream is reached; when it changes, what was read before is stale. */
export function upstreamFingerprint(
  gateway: Pick<
    Gateway,
    | 'url'
    | 'transport'
    | 'authType'
    | 'authSecret'
    | 'stdioCommand'
    | 'stdioArgs'
    | 'stdioCwd'
    | 'stdioEnv'
  >,
): string {
  return JSON.stringify([
    gateway.url,
    gateway.transport,
    gateway.authType,
    gateway.authSecret,
    gateway.stdioCommand,
    gateway.stdioArgs,
    gateway.stdioCwd,
    gateway.stdioEnv,
  ]);
}

/** Whether a connection opened for `before` still serves `after` (null: no longer active). */
export function sameTarget(before: UpstreamTarget, after: UpstreamTarget | null): boolean {
  return after !== null && isDeepStrictEqual(before.endpoint, after.endpoint);
}
