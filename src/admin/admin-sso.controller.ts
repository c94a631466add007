import { Get, NotFoundException, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { AuditTrail } from '../audit/audit-trail.service';
import { AdminSessionService, cookieOptions } from '../auth/admin-session.service';
import { AuthErrorCode, AuthException } from '../auth/auth.exception';
import { Public } from '../auth/auth.decorators';
import { OidcLogin } from '../auth/oidc-login';
import { TeamNames } from '../auth/team-names';
import { parseCookies } from '../common/cookie-header';
import { ServerSettings } from '../config/slices/server.settings';
import { UsersService } from '../users/users.service';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { safeNext } from './login-redirect';

const PENDING_COOKIE = 'portico_sso';

/**
 * Admin sign-in through the identity provider, beside the password form. The pending attempt
 * rides in a cookie that must come back on the provider's cross-site redirect, so it is
 * SameSite=Lax (the session cookie itself stays Strict).
 */
@AdminController('admin/sso')
export class AdminSsoController {
  constructor(
    private readonly oidc: OidcLogin,
    private readonly users: UsersService,
    private readonly teams: TeamNames,
    private readonly sessions: AdminSessionService,
    private readonly pages: AdminPages,
    private readonly serverSettings: ServerSettings,
    private readonly audit: AuditTrail,
  ) {}

  @Public()
  @Get('start')
  async start(
    @Req() request: Request,
    @Res() response: Response,
    @Query('next') next?: string,
  ): Promise<void> {
    this.assertEnabled();
    try {
      const { url, pending } = await this.oidc.start(safeNext(next));
      response.cookie(PENDING_COOKIE, pending, {
        ...cookieOptions(this.serverSettings, request, '/admin/sso'),
        sameSite: 'lax',
        maxAge: 10 * 60 * 1000,
      });
      response.redirect(303, url);
    } catch (error) {
      await this.refuse(request, response, error);
    }
  }

  @Public()
  @Get('callback')
  async callback(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.assertEnabled();
    const pending = parseCookies(request.headers.cookie).get(PENDING_COOKIE);
    response.clearCookie(PENDING_COOKIE, {
      ...cookieOptions(this.serverSettings, request, '/admin/sso'),
      sameSite: 'lax',
    });
    const started = performance.now();
    let username: string | null = null;
    try {
      const query = request.originalUrl.split('?')[1] ?? '';
      const { identity, next } = await this.oidc.finish(query, pending);
      username = identity.username;
      if (identity.role === null) {
        throw new AuthException(
          AuthErrorCode.InvalidCredentials,
          `${identity.username} signed in, but none of their groups has a role in Portico. Ask an admin.`,
        );
      }
      const teamIds = await this.teams.ids(identity.teamNames);
      const userId = await this.users.signInFromProvider({
        issuer: identity.issuer,
        subject: identity.subject,
        username: identity.username,
        displayName: identity.displayName,
        role: identity.role,
        teamIds,
      });
      if (userId === null)
        throw new AuthException(AuthErrorCode.InvalidCredentials, 'This account is disabled here.');
      this.sessions.start(request, response, userId);
      this.audit.record({
        kind: 'login',
        action: 'sso-login',
        outcome: 'ok',
        durationMs: performance.now() - started,
        subject: `user:${userId}`,
        username: identity.username.slice(0, 255),
        userId,
        teamIds: [...teamIds],
      });
      response.redirect(303, safeNext(next));
    } catch (error) {
      if (error instanceof AuthException)
        this.audit.record({
          kind: 'login',
          action: 'sso-login',
          outcome: 'denied',
          durationMs: performance.now() - started,
          username: username?.slice(0, 255) ?? null,
          detail: error.message.slice(0, 500),
        });
      await this.refuse(request, response, error);
    }
  }

  private assertEnabled(): void {
    if (!this.oidc.enabled) throw new NotFoundException('Single sign-on is not configured.');
  }

  /** Back to the login page, saying why; anything but a refusal is a bug and goes on up. */
  private async refuse(request: Request, response: Response, error: unknown): Promise<void> {
    if (!(error instanceof AuthException)) throw error;
    delete request.adminSession;
    await this.pages.render(
      request,
      response,
      'login',
      {
        title: 'Log in',
        section: 'login',
        csrfToken: this.sessions.csrfToken(this.sessions.loginNonce(request, response)),
        values: { username: '', next: '/admin' },
        errors: {},
        formError: error.message,
        sso: this.oidc.enabled ? { label: this.oidc.label, href: '/admin/sso/start' } : null,
      },
      401,
    );
  }
}
