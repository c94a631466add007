import { Injectable } from '@nestjs/common';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { AppConfig } from '../config/app-config';
import { credentialHeaders, credentialSecrets } from '../gateways/gateway-credentials';
import { type Channel } from './channel';
import { HttpChannel } from './http-channel';
import { TransportChannel } from './transport-channel';
import { UpstreamConnection, type UpstreamListener } from './upstream-connection';
import { UpstreamPools } from './upstream-pools.service';
import { type UpstreamEndpoint, type UpstreamTarget } from './upstream-target';

export interface OpenOptions {
  /** What Portico declares upstream; none by default. */
  capabilities?: ClientCapabilities;
  listener?: UpstreamListener;
}

/** Opens connections to upstreams over the wire each gateway's transport needs. */
@Injectable()
export class UpstreamConnector {
  constructor(
    private readonly config: AppConfig,
    private readonly pools: UpstreamPools,
  ) {}

  get timeoutMs(): number {
    return this.config.upstreamTimeoutMs;
  }

  /** Connects and runs the handshake; throws an UpstreamFailure. */
  open(target: UpstreamTarget, options: OpenOptions = {}): Promise<UpstreamConnection> {
    const { credentials } = target.endpoint;
    return UpstreamConnection.open(this.channel(target.endpoint), {
      timeoutMs: this.timeoutMs,
      capabilities: options.capabilities ?? {},
      secrets: credentialSecrets(credentials),
      listener: options.listener,
    });
  }

  private channel(endpoint: UpstreamEndpoint): Channel {
    const headers = credentialHeaders(endpoint.credentials);
    const url = new URL(endpoint.url);
    switch (endpoint.transport) {
      case 'streamable-http':
        return new HttpChannel({ url, headers, dispatchers: this.pools.for(url) });
      case 'sse':
        return new TransportChannel(
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
}
