import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type OAuthTokens } from '@modelcontextprotocol/server';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AuthException } from '../auth/auth.exception';
import { GrantStatus } from '../auth/grant-status';
import { McpAccess } from '../auth/mcp-access';
import { OAuthAccessTokens } from '../auth/oauth-access-token';
import { PrincipalResolver } from '../auth/principal-resolver';
import { ServerSettings } from '../config/slices/server.settings';
import { EventBus } from '../events/event-bus';
import { type AuthorizationRequest } from './authorization-request';
import { OAuthError, OAuthErrorCode } from './endpoints/oauth-error';
import { OAuthCode } from './oauth-code.entity';
import { OAuthGrant } from './oauth-grant.entity';
import { OAuthRefreshToken } from './oauth-refresh-token.entity';
import { resourceTarget } from '../auth/oauth-resource';
import { errorMessage } from '../common/error-message';
import { uniqueViolation } from '../common/unique-violation';

export const ACCESS_TOKEN_SECONDS = 3600;
const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
const CODE_SECONDS = 120;
const PURGE_MS = 3600_000;

function hash(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

function invalidGrant(message: string): OAuthError {
  return new OAuthError(OAuthErrorCode.InvalidGrant, message);
}

function secret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Grants, authorization codes and refresh tokens of the embedded authorization server. Codes and
 * refresh tokens are stored as hashes and work once: presenting one again (a stolen copy) revokes
 * the whole grant, and every token issued under it stops on every replica.
 */
@Injectable()
export class OAuthGrants implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(OAuthGrants.name);
  private purge?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: ServerSettings,
    private readonly accessTokens: OAuthAccessTokens,
    private readonly status: GrantStatus,
    private readonly principals: PrincipalResolver,
    private readonly mcp: McpAccess,
    private readonly bus: EventBus,
  ) {}

  onModuleInit(): void {
    this.purge = setInterval(() => void this.purgeExpired(), PURGE_MS).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purge);
  }

  /**
   * After consent: a grant for the user, and a code for the client to exchange; null when the
   * request was answered with a code before (a resubmitted consent form grants nothing more).
   */
  async authorize(userId: string, request: AuthorizationRequest): Promise<string | null> {
    const code = secret();
    const inserted = this.dataSource.transaction(async (em) => {
      const grant = await em.getRepository(OAuthGrant).save(
        em.getRepository(OAuthGrant).create({
          clientId: request.clientId,
          userId,
          resource: request.resource,
          scope: request.scope,
          revokedAt: null,
        }),
      );
      await em.query(
        `UPDATE oauth_client SET granted_at = now() WHERE client_id = $1 AND granted_at IS NULL`,
        [request.clientId],
      );
      await em.getRepository(OAuthCode).insert({
        codeHash: hash(code),
        requestId: request.id,
        grantId: grant.id,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        expiresAt: new Date(Date.now() + CODE_SECONDS * 1000),
        usedAt: null,
      });
    });
    try {
      await inserted;
      return code;
    } catch (error) {
      if (uniqueViolation(error) === 'oauth_code_request_uq') return null;
      throw error;
    }
  }

  /** The PKCE challenge of an unused code of this client; a used one revokes its grant. */
  async challenge(clientId: string, code: string): Promise<string> {
    const row = await this.dataSource
      .getRepository(OAuthCode)
      .findOne({ where: { codeHash: hash(code) }, relations: { grant: true } });
    if (!row || row.grant?.clientId !== clientId)
      throw invalidGrant('Unknown or foreign authorization code');
    if (row.usedAt !== null) {
      await this.revoke(row.grantId);
      throw invalidGrant('The authorization code was used before; its grant is revoked');
    }
    return row.codeChallenge;
  }

  async exchangeCode(
    clientId: string,
    code: string,
    redirectUri: string | undefined,
    resource: URL | undefined,
  ): Promise<OAuthTokens> {
    const claimed: { grant_id: string; redirect_uri: string; expires_at: Date }[] =
      await this.dataSource
        .query(
          `UPDATE oauth_code SET used_at = now() WHERE code_hash = $1 AND used_at IS NULL
         RETURNING grant_id, redirect_uri, expires_at`,
          [hash(code)],
        )
        .then((result: [typeof claimed, number]) => result[0]);
    const row = claimed[0];
    if (!row) {
      const replayed = await this.dataSource
        .getRepository(OAuthCode)
        .findOneBy({ codeHash: hash(code) });
      if (replayed) await this.revoke(replayed.grantId);
      throw invalidGrant('Unknown or already used authorization code');
    }
    const grant = await this.activeGrant(row.grant_id, clientId);
    if (row.expires_at.getTime() <= Date.now()) throw invalidGrant('The code has expired');
    if (redirectUri !== row.redirect_uri)
      throw invalidGrant('redirect_uri differs from the authorization request');
    this.assertResource(grant, resource);
    return this.issue(grant);
  }

  /** Rotates the refresh token: the presented one is spent, a new one comes back. */
  async refresh(
    clientId: string,
    refreshToken: string,
    resource: URL | undefined,
  ): Promise<OAuthTokens> {
    // Spent only by the client it was issued to: another client's attempt is refused without
    // using it up (which would revoke its grant at its own client's next refresh).
    const spent: { grant_id: string; expires_at: Date }[] = await this.dataSource
      .query(
        `UPDATE oauth_refresh_token t SET used_at = now() FROM oauth_grant g
         WHERE t.token_hash = $1 AND t.used_at IS NULL AND g.id = t.grant_id AND g.client_id = $2
         RETURNING t.grant_id, t.expires_at`,
        [hash(refreshToken), clientId],
      )
      .then((result: [typeof spent, number]) => result[0]);
    const row = spent[0];
    if (!row) {
      const reused = await this.dataSource
        .getRepository(OAuthRefreshToken)
        .findOne({ where: { tokenHash: hash(refreshToken) }, relations: { grant: true } });
      if (reused && reused.grant?.clientId !== clientId)
        throw invalidGrant('The grant was revoked or belongs to another client');
      if (reused) {
        await this.revoke(reused.grantId);
        throw invalidGrant('The refresh token was used before; the grant is revoked');
      }
      throw invalidGrant('Unknown refresh token');
    }
    const grant = await this.activeGrant(row.grant_id, clientId);
    if (row.expires_at.getTime() <= Date.now()) throw invalidGrant('The refresh token has expired');
    this.assertResource(grant, resource);
    return this.issue(grant);
  }

  /** RFC 7009: a refresh or access token of this client ends its grant; anything else is ignored. */
  async revokeToken(clientId: string, token: string): Promise<void> {
    const refresh = await this.dataSource
      .getRepository(OAuthRefreshToken)
      .findOne({ where: { tokenHash: hash(token) }, relations: { grant: true } });
    if (refresh) {
      if (refresh.grant?.clientId === clientId) await this.revoke(refresh.grantId);
      return;
    }
    try {
      const claims = await this.accessTokens.verify(token);
      if (claims.client_id === clientId) await this.revoke(claims.gid);
    } catch (error) {
      if (!(error instanceof AuthException)) throw error;
    }
  }

  /** Ends a grant and every token issued under it, on every replica. */
  async revoke(grantId: string): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .update(OAuthGrant)
      .set({ revokedAt: () => 'now()' })
      .where('id = :grantId AND revoked_at IS NULL', { grantId })
      .execute();
    await this.dataSource.getRepository(OAuthRefreshToken).delete({ grantId });
    this.status.revoked([grantId]);
    await this.bus.publish({
      type: 'identity.changed',
      userIds: [],
      tokenIds: [],
      grantIds: [grantId],
    });
  }

  /** The grant, if this client's, unrevoked, and its user may still use its resource. */
  private async activeGrant(grantId: string, clientId: string): Promise<OAuthGrant> {
    const grant = await this.dataSource.getRepository(OAuthGrant).findOneBy({ id: grantId });
    if (!grant || grant.clientId !== clientId || grant.revokedAt !== null)
      throw invalidGrant('The grant was revoked or belongs to another client');
    const target = resourceTarget(grant.resource, this.config.publicUrl);
    const principal = await this.principals
      .ofUser(grant.userId, 'oauth')
      .catch((error: unknown) => {
        if (error instanceof AuthException) return null;
        throw error;
      });
    const decision = principal && target ? await this.mcp.check(principal, target) : null;
    if (!decision?.allowed) {
      await this.revoke(grant.id);
      throw invalidGrant('The user may no longer use this resource');
    }
    return grant;
  }

  private assertResource(grant: OAuthGrant, resource: URL | undefined): void {
    if (resource !== undefined && resource.href !== new URL(grant.resource).href)
      throw new OAuthError(
        OAuthErrorCode.InvalidTarget,
        'The resource differs from the one authorized',
      );
  }

  private async issue(grant: OAuthGrant): Promise<OAuthTokens> {
    const refreshToken = secret();
    await this.dataSource.getRepository(OAuthRefreshToken).insert({
      tokenHash: hash(refreshToken),
      grantId: grant.id,
      expiresAt: new Date(Date.now() + REFRESH_TOKEN_SECONDS * 1000),
      usedAt: null,
    });
    const accessToken = await this.accessTokens.sign(
      {
        sub: grant.userId,
        aud: grant.resource,
        client_id: grant.clientId,
        scope: grant.scope,
        gid: grant.id,
      },
      ACCESS_TOKEN_SECONDS,
    );
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_SECONDS,
      refresh_token: refreshToken,
      scope: grant.scope,
    };
  }

  /**
   * Deletes spent codes and refresh tokens, the grants they leave without a way to a token,
   * unused copies of metadata documents and registrations never granted anything; never rejects,
   * a failure waits for the next round.
   */
  async purgeExpired(): Promise<void> {
    try {
      await this.dataSource.query(
        `DELETE FROM oauth_code WHERE expires_at < now() - interval '1 day'`,
      );
      await this.dataSource.query(
        `DELETE FROM oauth_refresh_token WHERE expires_at < now() OR used_at < now() - interval '30 days'`,
      );
      // A grant revoked a day ago, or one with neither a code nor a refresh token left to spend:
      // every access token it issued has expired (each came with one of them), and none can come.
      // A missing grant is as inactive as a revoked one (GrantStatus), on every replica.
      await this.dataSource.query(
        `DELETE FROM oauth_grant g WHERE g.revoked_at < now() - interval '1 day'
         OR (g.created_at < now() - interval '1 day'
           AND NOT EXISTS (SELECT 1 FROM oauth_code c WHERE c.grant_id = g.id)
           AND NOT EXISTS (SELECT 1 FROM oauth_refresh_token t
             WHERE t.grant_id = g.id AND t.used_at IS NULL AND t.expires_at > now()))`,
      );
      // Copies of metadata documents that went stale a day ago, and registrations a day old that
      // no user ever granted anything (anyone may register), that no grant refers to.
      await this.dataSource.query(
        `DELETE FROM oauth_client c
         WHERE (c.document_expires_at < now() - interval '1 day'
           OR (c.document_expires_at IS NULL AND c.granted_at IS NULL
             AND c.created_at < now() - interval '1 day'))
         AND NOT EXISTS (SELECT 1 FROM oauth_grant g WHERE g.client_id = c.client_id)`,
      );
    } catch (error) {
      this.logger.warn(
        `Could not purge expired OAuth codes, refresh tokens and grants: ${errorMessage(error)}`,
      );
    }
  }
}
