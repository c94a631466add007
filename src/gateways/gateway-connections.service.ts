import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { type Principal } from '../auth/principal';
import { roleAtLeast } from '../common/roles';
import { TeamScope } from '../auth/team-scope';
import { seal, unseal } from '../common/secret-box';
import { SecretSettings } from '../config/slices/secrets.settings';
import { UpstreamSettings } from '../config/slices/upstream.settings';
import { EventBus } from '../events/event-bus';
import { SyncService } from '../sync/sync.service';
import { SHARED_OWNER } from '../upstream/oauth/upstream-oauth-token.entity';
import { type OAuthUpstream } from '../upstream/oauth/oauth-exchange';
import { type OAuthConnectionState, UpstreamOAuth } from '../upstream/oauth/upstream-oauth.service';
import { upstreamFailure } from '../upstream/upstream-error';
import { type Gateway } from './gateway.entity';
import { openCredentials } from '../upstream/upstream-credentials';
import { GatewayErrorCode, GatewayException } from './gateway.exception';
import { GatewaysService } from './gateways.service';

/** Whose account a connection is: the caller's own (per-user mode) or the gateway's. */
export type ConnectionAccount = 'mine' | 'gateway';

/** How long a person has to consent at the provider. */
const PENDING_TTL_MS = 10 * 60_000;

/** An authorization under way, sealed into a cookie of the browser that started it. */
interface PendingAuthorization {
  state: string;
  codeVerifier: string;
  gatewayId: string;
  owner: string;
  /** Who started it: only the same signed-in user may finish it. */
  userId: string | null;
  expiresAt: number;
}

/** One gateway's connections as one principal may see and change them. */
export interface ConnectionView {
  gateway: { id: string; name: string; mode: string };
  /** Per-user mode, for a principal that is a user: their own connection. */
  mine: { state: OAuthConnectionState | null } | null;
  /** The gateway's own account, for those who manage the gateway. */
  shared: { state: OAuthConnectionState | null; clientCredentials: boolean } | null;
}

/**
 * Connecting accounts to OAuth upstreams: who may connect whose account, and the start and
 * return of the authorization code flow. The flow's secrets (state, PKCE verifier) travel sealed
 * in the starting browser's cookie; the return must bring the same state, in that browser, and
 * the tokens go to the account named when it started, never to one named by the return.
 */
@Injectable()
export class GatewayConnections {
  constructor(
    private readonly gateways: GatewaysService,
    private readonly oauth: UpstreamOAuth,
    private readonly sync: SyncService,
    private readonly secrets: SecretSettings,
    private readonly upstreamSettings: UpstreamSettings,
    private readonly events: EventBus,
  ) {}

  async view(gatewayId: string, principal: Principal): Promise<ConnectionView> {
    const gateway = await this.oauthGateway(gatewayId, principal);
    const scope = TeamScope.of(principal);
    const perUser = gateway.oauthMode === 'per-user';
    return {
      gateway: { id: gateway.id, name: gateway.name, mode: gateway.oauthMode ?? '' },
      mine:
        perUser && principal.userId
          ? { state: await this.oauth.connection(gateway.id, principal.userId) }
          : null,
      shared: this.managesGateway(gateway, principal, scope)
        ? {
            state: await this.oauth.connection(gateway.id, SHARED_OWNER),
            clientCredentials: gateway.oauthMode === 'client-credentials',
          }
        : null,
    };
  }

  /**
   * Starts connecting an account. Returns where to send the browser and the sealed value it
   * keeps until it returns; client credentials need no browser, and are fetched at once (null).
   */
  async begin(
    gatewayId: string,
    principal: Principal,
    account: ConnectionAccount,
  ): Promise<{ authorizationUrl: string; pending: string } | null> {
    const gateway = await this.oauthGateway(gatewayId, principal);
    const owner = this.ownerFor(gateway, principal, account);
    const upstream = this.upstreamOf(gateway);
    try {
      if (upstream.settings.mode === 'client-credentials') {
        await this.oauth.disconnect(gateway.id, owner);
        await this.oauth.accessToken(upstream, owner);
        await this.sync.syncAfterChange(gateway.id);
        return null;
      }
      const state = randomBytes(32).toString('base64url');
      const started = await this.oauth.begin(upstream, state);
      const pending: PendingAuthorization = {
        state,
        codeVerifier: started.codeVerifier,
        gatewayId: gateway.id,
        owner,
        userId: principal.userId,
        expiresAt: Date.now() + PENDING_TTL_MS,
      };
      return {
        authorizationUrl: started.authorizationUrl,
        pending: seal(this.secrets.encryptionKey, JSON.stringify(pending)),
      };
    } catch (error) {
      throw this.failed(error);
    }
  }

  /**
   * The provider sent the browser back. `pending` is the cookie that browser kept, `state` and
   * `code` (or `error`) what the provider appended. Returns the gateway's id.
   */
  async finish(
    pendingValue: string | undefined,
    query: {
      state?: string;
      code?: string;
      error?: string;
      errorDescription?: string;
      /** RFC 9207: the issuer the provider says it is, checked against its metadata. */
      iss?: string;
    },
    principal: Principal | undefined,
  ): Promise<string> {
    const pending = this.openPending(pendingValue);
    if (!pending || !query.state || pending.state !== query.state)
      throw new GatewayException(
        GatewayErrorCode.AuthorizationFailed,
        'This authorization was not started in this browser, or it is too old. Start again from Portico.',
      );
    if (principal && principal.userId !== pending.userId)
      throw new GatewayException(
        GatewayErrorCode.AuthorizationFailed,
        'This authorization was started by another user.',
      );
    if (query.error)
      throw new GatewayException(
        GatewayErrorCode.AuthorizationFailed,
        `The provider refused the authorization: ${query.error}${query.errorDescription ? ` (${query.errorDescription})` : ''}`.slice(
          0,
          500,
        ),
      );
    if (!query.code)
      throw new GatewayException(
        GatewayErrorCode.AuthorizationFailed,
        'The provider sent no authorization code.',
      );
    const gateway = await this.gateways.find(pending.gatewayId);
    if (gateway.authType !== 'oauth') throw notOAuth(gateway);
    try {
      await this.oauth.finish(
        this.upstreamOf(gateway),
        pending.owner,
        query.code,
        pending.codeVerifier,
        query.iss,
      );
    } catch (error) {
      throw this.failed(error);
    }
    // Calls waiting for this person to connect go on; the connection stands without them.
    await this.events
      .publish({ type: 'oauth.connected', gatewayId: gateway.id, owner: pending.owner })
      .catch(() => undefined);
    if (pending.owner === SHARED_OWNER && gateway.enabled)
      await this.sync.syncAfterChange(gateway.id);
    return gateway.id;
  }

  async disconnect(
    gatewayId: string,
    principal: Principal,
    account: ConnectionAccount,
  ): Promise<boolean> {
    const gateway = await this.oauthGateway(gatewayId, principal);
    return this.oauth.disconnect(gateway.id, this.ownerFor(gateway, principal, account));
  }

  /** An admin or the gateway's operator removes one user's connection. */
  async disconnectUser(gatewayId: string, userId: string, principal: Principal): Promise<boolean> {
    const gateway = await this.oauthGateway(gatewayId, principal);
    if (!this.managesGateway(gateway, principal, TeamScope.of(principal)))
      throw forbidden('Only those who manage this gateway may remove its users’ connections.');
    return this.oauth.disconnect(gateway.id, userId);
  }

  /** Every connection of the gateway, for those who manage it. */
  async connections(gatewayId: string, principal: Principal): Promise<OAuthConnectionState[]> {
    const gateway = await this.oauthGateway(gatewayId, principal);
    if (!this.managesGateway(gateway, principal, TeamScope.of(principal)))
      throw forbidden('Only those who manage this gateway may list its connections.');
    return (await this.oauth.connections([gateway.id])).get(gateway.id) ?? [];
  }

  private ownerFor(gateway: Gateway, principal: Principal, account: ConnectionAccount): string {
    if (account === 'mine') {
      if (gateway.oauthMode !== 'per-user')
        throw new GatewayException(
          GatewayErrorCode.NotOAuth,
          `Gateway '${gateway.name}' uses one account for everyone; there is no personal account to connect.`,
        );
      if (!principal.userId) throw forbidden('Only a Portico user can connect a personal account.');
      return principal.userId;
    }
    if (!this.managesGateway(gateway, principal, TeamScope.of(principal)))
      throw forbidden(`Only those who manage gateway '${gateway.name}' may connect its account.`);
    return SHARED_OWNER;
  }

  private managesGateway(gateway: Gateway, principal: Principal, scope: TeamScope): boolean {
    return roleAtLeast(principal.role, 'operator') && scope.canManage(gateway.teamId);
  }

  private async oauthGateway(gatewayId: string, principal: Principal): Promise<Gateway> {
    const gateway = await this.gateways.visible(gatewayId, TeamScope.of(principal));
    if (gateway.authType !== 'oauth') throw notOAuth(gateway);
    return gateway;
  }

  private upstreamOf(gateway: Gateway): OAuthUpstream {
    const settings = openCredentials(this.secrets.encryptionKey, gateway);
    if (settings.type !== 'oauth' || gateway.url === null) throw notOAuth(gateway);
    return { gatewayId: gateway.id, url: gateway.url, settings };
  }

  private openPending(value: string | undefined): PendingAuthorization | null {
    if (!value) return null;
    try {
      const pending = JSON.parse(unseal(this.secrets.encryptionKey, value)) as PendingAuthorization;
      return pending.expiresAt > Date.now() ? pending : null;
    } catch {
      return null;
    }
  }

  private failed(error: unknown): GatewayException {
    if (error instanceof GatewayException) return error;
    return new GatewayException(
      GatewayErrorCode.UpstreamUnavailable,
      `The upstream's authorization server could not be used: ${upstreamFailure(error, this.upstreamSettings.upstreamTimeoutMs).message}`,
    );
  }
}

function notOAuth(gateway: Gateway): GatewayException {
  return new GatewayException(
    GatewayErrorCode.NotOAuth,
    `Gateway '${gateway.name}' does not use OAuth.`,
  );
}

function forbidden(message: string): GatewayException {
  return new GatewayException(GatewayErrorCode.ConnectionForbidden, message);
}
