import { SSEClientTransport } from '@modelcontextprotocol/client';
import { boundedFetch } from '../../common/remote-body';
import { credentialHeaders } from '../upstream-credentials';
import { UpstreamFailure } from '../upstream-error';
import { type UpstreamEndpoint } from '../upstream-target';
import { type BearerSource, type Channel } from './channel';
import { eventsBounded } from './sse-reader';
import { HttpChannel } from './http-channel';
import { HttpSessionChannel } from './http-session-channel';
import { StdioChannel } from './stdio/stdio-channel';
import { type StdioSupervisor } from './stdio/stdio-supervisor.service';
import { TransportChannel } from './transport-channel';
import { type UpstreamPools } from './upstream-pools.service';

/** What every channel the connector opens shares. */
export interface ChannelHost {
  stdio: StdioSupervisor;
  pools: UpstreamPools;
  /** Bounds of each message an upstream sends. */
  limits: { maxBytes: number; maxDepth: number };
}

/**
 * The channel a gateway's transport needs: a stdio process, Streamable HTTP over the gateway's
 * pool, or the older HTTP+SSE transport. `modernVersion` is stated to a 2026-07-28 upstream.
 */
export async function openChannel(
  { stdio, pools, limits }: ChannelHost,
  gatewayId: string,
  endpoint: UpstreamEndpoint,
  bearer: BearerSource | undefined,
  modern: { modernVersion?: string; probe?: boolean },
): Promise<Channel> {
  if (endpoint.transport === 'stdio') {
    if (!endpoint.stdio)
      throw new UpstreamFailure('unreachable', 'the stdio gateway has no command');
    return new StdioChannel(stdio, gatewayId, endpoint.stdio, modern.probe);
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
    case 'streamable-http': {
      const options = { url, headers, dispatchers: pools.for(gatewayId, url), bearer, limits };
      // A 2026-07-28 upstream has no session: each request is all there is.
      return modern.modernVersion === undefined
        ? new HttpSessionChannel(options)
        : new HttpChannel({ ...options, modernVersion: modern.modernVersion });
    }
    case 'sse': {
      // An event past the bound ends the session: the message it carried is lost.
      const channel: TransportChannel = new TransportChannel(
        limits.maxDepth,
        new SSEClientTransport(url, {
          requestInit: { headers },
          // What answers a message is read to the message bound, each event of the stream too.
          fetch: boundedFetch(limits.maxBytes),
          eventSourceInit: {
            fetch: async (input, init) =>
              eventsBounded(
                await fetch(input, {
                  ...init,
                  headers: { ...(init?.headers as Record<string, string>), ...headers },
                }),
                limits.maxBytes,
                (failure) => channel.lose(failure),
              ),
          },
        }),
      );
      return channel;
    }
    case 'openapi':
      throw new UpstreamFailure('internal', 'an OpenAPI gateway has no MCP channel');
  }
}
