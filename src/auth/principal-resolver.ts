import { type IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import { type Request } from 'express';
import { AdminSessionService } from './admin-session.service';
import { EndedSessions } from './ended-sessions';
import { ApiTokenVerifier } from './api-token-verifier';
import { looksLikeApiToken } from './api-token-value';
import { AuthErrorCode, AuthException } from './auth.exception';
import { ExternalIssuer } from './external-issuer';
import { GrantStatus } from './grant-status';
import { OAuthAccessTokens } from './oauth-access-token';
import { type Principal, type PrincipalSource } from './principal';
import { TokenService } from './token.service';
import { UserDirectory } from './user-directory';
import { Memo } from '../common/memo';

/**
 * Finds who a request acts for: from a bearer token (a managed API token, a login token, or a
 * token of an earlier version), or from the admin pages' session cookie. Throws 401 when the
 * credential is missing, invalid, expired or revoked, or its user may no longer sign in.
 */
@Injectable()
export class PrincipalResolver {
  /** Each valid bearer JWT's issuer, read once: a client presents the same token call after call. */
  private readonly issuers = new Memo<string, string | null>(ISSUER_MEMORY);

  constructor(
    private readonly tokens: TokenService,
    private readonly apiTokens: ApiTokenVerifier,
    private readonly users: UserDirectory,
    private readonly sessions: AdminSessionService,
    private readonly accessTokens: OAuthAccessTokens,
    private readonly grants: GrantStatus,
    private readonly external: ExternalIssuer,
    private readonly endedSessions: EndedSessions,
  ) {}

  async fromBearer(token: string): Promise<Principal> {
    if (looksLikeApiToken(token)) return this.apiTokens.verify(token);
    const known = this.issuers.get(token);
    const issuer = known === undefined ? issuerOf(token) : known;
    const principal = await this.fromJwt(token, issuer);
    // Only a token that proved valid is remembered, so junk tokens cannot fill the memory.
    if (known === undefined) this.issuers.remember(token, issuer);
    return principal;
  }

  /** A JWT, verified by whoever issued it: Portico's OAuth server, the OIDC issuer, or logins. */
  private async fromJwt(token: string, issuer: string | null): Promise<Principal> {
    if (issuer !== null && issuer === this.accessTokens.issuer) return this.fromAccessToken(token);
    if (issuer !== null && issuer === this.external.issuer) return this.external.principal(token);
    const verified = this.tokens.verify(token);
    const { expiresAt } = verified;
    switch (verified.kind) {
      case 'login':
        return this.ofUser(verified.userId, 'login-token', expiresAt);
      case 'legacy-admin': {
        const id = await this.users.idOf(verified.username);
        if (id === null) throw unauthenticated('The user of this token no longer exists.');
        return this.ofUser(id, 'legacy-token', expiresAt);
      }
      case 'legacy-server':
        return {
          subject: verified.subject,
          name: verified.subject,
          userId: null,
          role: 'member',
          teamIds: [],
          serverIds: verified.serverIds,
          audience: null,
          tokenId: null,
          source: 'legacy-token',
          expiresAt,
        };
    }
  }

  /**
   * An access token of the embedded authorization server: its user, bound (RFC 8707) to the one
   * MCP endpoint it was issued for, while its grant stands.
   */
  private async fromAccessToken(token: string): Promise<Principal> {
    const claims = await this.accessTokens.verify(token);
    if (!(await this.grants.active(claims.gid)))
      throw unauthenticated('The access token was revoked.');
    const user = await this.ofUser(claims.sub, 'oauth', claims.exp * 1000);
    return { ...user, audience: claims.aud, tokenId: claims.gid };
  }

  /** The admin pages' signed-in user, or null without a valid session. */
  async fromSession(request: Request): Promise<Principal | null> {
    const session = this.sessions.read(request);
    if (!session || (await this.endedSessions.ended(session))) return null;
    request.adminSession = session;
    try {
      return await this.ofUser(session.userId, 'session', session.expiresAt.getTime());
    } catch (error) {
      if (error instanceof AuthException) return null;
      throw error;
    }
  }

  /** A user acting as themselves, with their current role and teams. */
  async ofUser(userId: string, source: PrincipalSource, expiresAt?: number): Promise<Principal> {
    const user = await this.users.get(userId);
    if (!user || user.disabled) throw unauthenticated('This user may no longer sign in.');
    return {
      subject: `user:${user.id}`,
      name: user.username,
      userId: user.id,
      role: user.role,
      teamIds: user.teamIds,
      serverIds: null,
      audience: null,
      tokenId: null,
      source,
      expiresAt,
    };
  }
}

function unauthenticated(message: string): AuthException {
  return new AuthException(AuthErrorCode.Unauthenticated, message);
}

/** The most tokens whose issuer is remembered; past it the memory starts over. */
const ISSUER_MEMORY = 10_000;

/** The `iss` of a JWT, read without verifying it, only to pick who verifies it. */
export function issuerOf(token: string): string | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    const iss = (payload as { iss?: unknown } | null)?.iss;
    return typeof iss === 'string' ? iss : null;
  } catch {
    return null;
  }
}

/** The token of the request's `Authorization: Bearer …` header. */
export function bearerToken(request: Pick<IncomingMessage, 'headers'>): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match) throw new AuthException(AuthErrorCode.Unauthenticated, 'A bearer token is required.');
  return match[1]!;
}

/**
 * The tokens a security token service can take as the subject of an exchange (RFC 8693): those of
 * Portico's own authorization server and those of the identity provider it trusts. A Portico API
 * token, a login token or an admin page's session is Portico's alone: no token service knows it.
 */
const EXCHANGEABLE: ReadonlySet<PrincipalSource> = new Set(['oauth', 'external']);

/** Callers remembered at most; the longest unseen is forgotten first. */
const MAX_CALLERS = 10_000;

/** A caller's own bearer token, as Portico received it, with when it stops being good. */
export interface CallerToken {
  token: string;
  /** Epoch ms; absent when unknown. */
  expiresAt?: number;
}

/**
 * The latest exchangeable bearer token of each caller (by principal subject), kept in this
 * replica's memory only and never written anywhere: what a token-exchange upstream's connection
 * exchanges when it needs a new token for that caller, whichever request opened the connection.
 */
@Injectable()
export class CallerTokens {
  private readonly latest = new Map<string, CallerToken>();

  /** Notes the token a request came with; one that cannot be exchanged is not kept. */
  remember(principal: Principal, token: string | undefined): void {
    if (!token || !EXCHANGEABLE.has(principal.source)) return;
    const held = this.latest.get(principal.subject);
    if (held?.token === token) return;
    this.latest.delete(principal.subject);
    if (this.latest.size >= MAX_CALLERS) {
      const oldest = this.latest.keys().next();
      if (!oldest.done) this.latest.delete(oldest.value);
    }
    this.latest.set(principal.subject, { token, expiresAt: principal.expiresAt });
  }

  /** The caller's exchangeable token, unless it has expired; null when none is held. */
  of(subject: string): CallerToken | null {
    const held = this.latest.get(subject);
    if (!held) return null;
    if (held.expiresAt !== undefined && held.expiresAt <= Date.now()) {
      this.latest.delete(subject);
      return null;
    }
    return held;
  }
}

/** The subject whose token a request may exchange: null for a caller whose token cannot be. */
export function exchangeSubjectOf(principal: Principal): string | null {
  return EXCHANGEABLE.has(principal.source) ? principal.subject : null;
}
