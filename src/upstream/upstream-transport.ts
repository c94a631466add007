import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { credentialHeaders, type GatewayCredentials } from '../gateways/gateway-credentials';
import { type GatewayTransport } from '../gateways/gateway.entity';

export interface UpstreamEndpoint {
  url: string;
  transport: GatewayTransport;
  credentials: GatewayCredentials;
}

/**
 * The SDK client transport for one upstream, carrying its credentials on every request. Requests
 * go through Node's global fetch, whose dispatcher keeps connections alive and pools them per
 * origin across all clients.
 */
export function upstreamTransport(endpoint: UpstreamEndpoint): Transport {
  const headers = credentialHeaders(endpoint.credentials);
  const url = new URL(endpoint.url);
  switch (endpoint.transport) {
    case 'streamable-http':
      return new StreamableHTTPClientTransport(url, {
        requestInit: { headers },
        reconnectionOptions: {
          maxRetries: 2,
          initialReconnectionDelay: 500,
          maxReconnectionDelay: 5000,
          reconnectionDelayGrowFactor: 2,
        },
      });
    case 'sse':
      return new SSEClientTransport(url, {
        requestInit: { headers },
        eventSourceInit: {
          fetch: (input, init) =>
            fetch(input, {
              ...init,
              headers: { ...(init?.headers as Record<string, string>), ...headers },
            }),
        },
      });
  }
}
