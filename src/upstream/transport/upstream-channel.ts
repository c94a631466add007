import { SSEClientTransport } from '@modelcontextprotocol/client';
import { credentialHeaders } from '../../gateways/gateway-credentials';
import { UpstreamFailure } from '../upstream-error';
import { type UpstreamTarget } from '../upstream-target';
import { type Channel } from './channel';
import { type BearerSource, HttpChannel } from './http-channel';
import { type MessageLimits } from './message-bounds';
import { StdioChannel } from './stdio/stdio-channel';
import { type StdioSupervisor } from './stdio/stdio-supervisor.service';
import { TransportChannel } from './transport-channel';
import { type UpstreamPools } from './upstream-pools.service';

/** What a channel is made with: the pooled HTTP connections, the stdio processes, the bounds. */
export interface ChannelParts {
  pools: UpstreamPools;
  stdio: StdioSupervisor;
  limits: MessageLimits;
}

/**
 * The channel a gateway's transport needs: a stdio process, Streamable HTTP (stating
 * `modernVersion` to a 2026-07-28 upstream), or the 2024 HTTP+SSE transport. Throws an
 * UpstreamFailure when the gateway says nothing of where its upstream is.
 */
export async function upstreamChannel(
  parts: ChannelParts,
  { gatewayId, endpoint }: UpstreamTarget,
  bearer?: BearerSource,
  modern: { modernVersion?: string; probe?: boolean } = {},
): Promise<Channel> {
  if (endpoint.transport === 'stdio') {
    if (!endpoint.stdio)
      throw new UpstreamFailure('unreachable', 'the stdio gateway has no command');
    return new StdioChannel(parts.stdio, gatewayId, endpoint.stdio, modern.probe);
  }
  if (endpoint.url === null) throw new UpstreamFailure('unreachable', 'the gateway has no URL');
  const headers = {
    ...credentialHeaders(endpoint.credentials),
    // The older transport takes headers once: the token of the moment the session opens.
    ...(bearer && endpoint.transport !== 'streamable-http'
      ? { Authorization: `Bearer ${await bearer.token()}` }
      : {}),
  };
  const url = new URL(endpoint.url);
  switch (endpoint.transport) {
    case 'streamable-http':
      return new HttpChannel({
        url,
        headers,
        dispatchers: parts.pools.for(gatewayId, url),
        bearer,
        limits: parts.limits,
        modernVersion: modern.modernVersion,
      });
    case 'sse':
      return new TransportChannel(
        parts.limits.maxDepth,
        new SSEClientTransport(url, {
          requestInit: { headers },
          eventSourceInit: {
            fetch: (input, init) =>
              fetch(input, {
                ...init,
                headers: { ...(init?.headers as Record<string, string>), ...headers },
              }),
          },
        }),
      );
  }
}
