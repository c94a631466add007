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
import { StdioChannel } from './stdio/stdio-channel';
import { StdioSupervisor } from './stdio/stdio-supervisor.service';
import { UpstreamFailure } from './upstream-error';
import { type UpstreamTarget } from './upstream-target';

export interface OpenOptions {
  /** What Portico declares upstream; none by default. */
  capabilities?: ClientCapabilities;
  listener?: UpstreamListener;
  /** Whether to hear the upstream outside requests; one-off exchanges need not (default true). */
  listen?: boolean;
}

/** Opens connections to upstreams over the wire each gateway's transport needs. */
@Injectable()
export class UpstreamConnector {
  constructor(
    private readonly config: AppConfig,
    private readonly pools: UpstreamPools,
    private readonly stdio: StdioSupervisor,
  ) {}

  get timeoutMs(): number {
    return this.config.upstreamTimeoutMs;
  }

  /** Connects and runs the handshake; throws an UpstreamFailure. */
  async open(target: UpstreamTarget, options: OpenOptions = {}): Promise<UpstreamConnection> {
    const { credentials, stdio } = target.endpoint;
    return UpstreamConnection.open(this.channel(target), {
      timeoutMs: this.timeoutMs,
      capabilities: options.capabilities ?? {},
      secrets: [...credentialSecrets(credentials), ...Object.values(stdio?.env ?? {})],
      listener: options.listener,
      listen: options.listen,
    });
  }

  private channel({ gatewayId, endpoint }: UpstreamTarget): Channel {
    if (endpoint.transport === 'stdio') {
      if (!endpoint.stdio)
        throw new UpstreamFailure('unreachable', 'the stdio gateway has no command');
      return new StdioChannel(this.stdio, gatewayId, endpoint.stdio);
    }
    const headers = credentialHeaders(endpoint.credentials);
    if (endpoint.url === null) throw new UpstreamFailure('unreachable', 'the gateway has no URL');
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
