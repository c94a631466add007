import { Body, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { MinRole, Public } from '../auth/auth.decorators';
import { OidcLogin } from '../auth/oidc-login';
import { PasswordLogin } from '../auth/password-login';
import { TokenRequestDto } from '../auth/dto/token-request.dto';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { EndedSessions } from '../auth/ended-sessions';
import { AdminSessionService } from '../auth/admin-session.service';
import { type FormBody, formField } from './form-body';
import { type FormErrors } from './form-errors';
import { submitForm } from './form-submission';
import { safeNext } from './login-redirect';

@AdminController('admin')
export class AdminLoginController {
  constructor(
    private readonly login: PasswordLogin,
    private readonly sessions: AdminSessionService,
    private readonly endedSessions: EndedSessions,
    private readonly pages: AdminPages,
    private readonly oidc: OidcLogin,
  ) {}

  @Public()
  @Get('login')
  async form(
    @Req() request: Request,
    @Res() response: Response,
    @Query('next') next?: string,
  ): Promise<void> {
    if (request.adminSession) return response.redirect(303, safeNext(next));
    await this.render(request, response, { username: '', next: safeNext(next) });
  }

  /** The same credentials check, throttle included, as `POST /api/v1/auth/token`. */
  @Public()
  @Post('login')
  async submit(
    @Req() request: Request,
    @Res() response: Response,
    @Body() body: FormBody,
  ): Promise<void> {
    const username = formField(body, 'username');
    const next = safeNext(formField(body, 'next'));
    const submission = await submitForm(
      TokenRequestDto,
      { username, password: formField(body, 'password') },
      {},
      (dto) => this.login.authenticate(dto.username, dto.password, request.ip ?? 'unknown'),
    );
    if (!submission.ok) {
      await this.render(request, response, { username, next }, submission.errors);
      return;
    }
    this.sessions.start(request, response, submission.result);
    response.redirect(303, next);
  }

  @Post('logout')
  @MinRole('member')
  @HttpCode(303)
  async logout(@Req() request: Request, @Res() response: Response): Promise<void> {
    if (request.adminSession) await this.endedSessions.end(request.adminSession);
    this.sessions.end(request, response);
    this.pages.redirect(request, response, '/admin/login', {
      kind: 'info',
      text: 'You are logged out.',
    });
  }

  private async render(
    request: Request,
    response: Response,
    values: { username: string; next: string },
    errors?: FormErrors,
  ): Promise<void> {
    // The login form's CSRF token is bound to a nonce cookie, there being no session yet.
    delete request.adminSession;
    await this.pages.render(
      request,
      response,
      'login',
      {
        title: 'Log in',
        section: 'login',
        csrfToken: this.sessions.csrfToken(this.sessions.loginNonce(request, response)),
        values,
        errors: errors?.fields ?? {},
        formError: errors?.message ?? null,
        sso: this.oidc.enabled
          ? {
              label: this.oidc.label,
              href:
                values.next === '/admin'
                  ? '/admin/sso/start'
                  : `/admin/sso/start?next=${encodeURIComponent(values.next)}`,
            }
          : null,
      },
      errors?.status ?? 200,
    );
  }
}
