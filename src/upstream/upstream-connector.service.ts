import { Injectable } from '@nestjs/common';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { AppConfig } from '../config/app-config';
import {
  credentialHeaders,
  credentialSecrets,
  type OAuthSettings,
} from '../gateways/gateway-credentials';
import { type Channel } from './channel';
import { type BearerSource, HttpChannel } from './http-channel';
import { type MessageLimits } from './message-bounds';
import { SHARED_OWNER } from './oauth/upstream-oauth-token.entity';
import { UpstreamOAuth } from './oauth/upstream-oauth.service';
import { TransportChannel } from './transport-channel';
import { UpstreamConnection, type UpstreamListener } from './upstream-connection';
import { UpstreamGuards } from './upstream-guards.service';
import { UpstreamPools } from './upstream-pools.service';
import { StdioChannel } from './stdio/stdio-channel';
import { StdioSupervisor } from './stdio/stdio-supervisor.service';
import { UpstreamAuthorizationRequired, UpstreamFailure } from './upstream-error';
import { type UpstreamTarget } from './upstream-target';

export interface OpenOptions {
  /** What Portico declares upstream; none by default. */
  capabilities?: ClientCapabilities;
  listener?: UpstreamListener;
  /** Whether to hear the upstream outside requests; one-off exchanges need not (default true). */
  listen?: boolean;
  /**
   * The person the connection acts for (the MCP caller, or who invokes a tool), whose own token
   * a per-user OAuth upstream gets; absent for Portico's own work (sync, health), which uses the
   * gateway's connected account.
   */
  actingFor?: { userId: string | null };
}

const MAX_REMEMBERED_TOKENS = 4;

/** Opens connections to upstreams over the wire each gateway's transport needs. */
@Injectable()
export class UpstreamConnector {
  constructor(
    private readonly config: AppConfig,
    private readonly pools: UpstreamPools,
    private readonly oauth: UpstreamOAuth,
    private readonly stdio: StdioSupervisor,
    private readonly guards: UpstreamGuards,
  ) {}

  get timeoutMs(): number {
    return this.config.upstreamTimeoutMs;
  }

  private get messageLimits(): MessageLimits {
    return {
      maxBytes: this.config.upstreamMessageLimitBytes,
      maxDepth: this.config.jsonMaxDepth,
    };
  }

  /**
   * Connects and runs the handshake; throws an UpstreamFailure, at once (an UpstreamRefused)
   * while the upstream's circuit breaker is open.
   */
  async open(target: UpstreamTarget, options: OpenOptions = {}): Promise<UpstreamConnection> {
    const guard = this.guards.for(target);
    guard.check();
    const { credentials, stdio } = target.endpoint;
    // One array, which the OAuth source extends with each token it hands out.
    const secrets = [...credentialSecrets(credentials), ...Object.values(stdio?.env ?? {})];
    const bearer =
      credentials.type === 'oauth'
        ? await this.bearer(target, credentials, options.actingFor, secrets)
        : undefined;
    return UpstreamConnection.open(await this.channel(target, bearer), {
      timeoutMs: this.timeoutMs,
      capabilities: options.capabilities ?? {},
      secrets,
      listener: options.listener,
      listen: options.listen,
      guard,
      retry: this.config.upstreamResilience.retry,
    });
  }

  /**
   * Whose token an OAuth upstream gets. The first token is obtained here, so that a caller who
   * has none learns it (with the link to connect) before anything is sent upstream.
   */
  private async bearer(
    target: UpstreamTarget,
    settings: OAuthSettings,
    actingFor: OpenOptions['actingFor'],
    secrets: string[],
  ): Promise<BearerSource> {
    let owner = SHARED_OWNER;
    if (settings.mode === 'per-user' && actingFor) {
      if (actingFor.userId === null)
        throw new UpstreamAuthorizationRequired(
          'Each user calls this upstream with their own account, and this credential belongs to no Portico user.',
          null,
        );
      owner = actingFor.userId;
    }
    const { url } = target.endpoint;
    if (url === null) throw new UpstreamFailure('unreachable', 'the gateway has no URL');
    const upstream = { gatewayId: target.gatewayId, url, settings };
    const source: BearerSource = {
      token: async (stale) => {
        const token = await this.oauth.accessToken(upstream, owner, stale);
        // Cut out of any failure's text, as fixed credentials are; the last few are enough.
        if (!secrets.includes(token)) secrets.push(token);
        if (secrets.length > MAX_REMEMBERED_TOKENS) secrets.splice(0, 1);
        return token;
      },
    };
    await source.token();
    return source;
  }

  private async channel(
    { gatewayId, endpoint }: UpstreamTarget,
    bearer?: BearerSource,
  ): Promise<Channel> {
    if (endpoint.transport === 'stdio') {
      if (!endpoint.stdio)
        throw new UpstreamFailure('unreachable', 'the stdio gateway has no command');
      return new StdioChannel(this.stdio, gatewayId, endpoint.stdio);
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
          dispatchers: this.pools.for(gatewayId, url),
          bearer,
          limits: this.messageLimits,
        });
      case 'sse':
        return new TransportChannel(
          this.messageLimits.maxDepth,
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
