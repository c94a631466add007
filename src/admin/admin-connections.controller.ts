import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { cookieOptions } from '../auth/admin-session.service';
import { MinRole, Public } from '../auth/auth.decorators';
import { type Principal } from '../auth/principal';
import { TeamScope } from '../auth/team-scope';
import { parseCookies } from '../common/cookie-header';
import { UuidParam } from '../common/uuid-param';
import { ServerSettings } from '../config/slices/server.settings';
import {
  type ConnectionAccount,
  GatewayConnections,
} from '../gateways/gateway-connections.service';
import { GatewayException } from '../gateways/gateway.exception';
import { GatewaysService } from '../gateways/gateways.service';
import { type OAuthConnectionState } from '../upstream/oauth/upstream-oauth.service';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { type FormBody, formField } from './form-body';

const PENDING_COOKIE = 'portico_upstream_oauth';
const COOKIE_PATH = '/admin/connections';

/**
 * Connecting accounts to OAuth upstreams: each user their own (per-user gateways), operators the
 * gateway's. Connecting is a form post (CSRF-checked) that sends the browser to the provider; the
 * provider sends it back to the one fixed callback, which never redirects anywhere a request
 * names. The pending flow rides in a sealed SameSite=Lax cookie, as the provider's redirect is
 * cross-site and the Strict session cookie does not come with it.
 */
@AdminController('admin/connections')
@MinRole('member')
export class AdminConnectionsController {
  constructor(
    private readonly connections: GatewayConnections,
    private readonly gateways: GatewaysService,
    private readonly pages: AdminPages,
    private readonly config: ServerSettings,
  ) {}

  @Get()
  async list(@Req() request: Request, @Res() response: Response): Promise<void> {
    const principal = request.principal!;
    const summaries = await this.gateways.oauthGateways(TeamScope.of(principal));
    await this.pages.render(request, response, 'connections', {
      title: 'Connected accounts',
      section: 'connections',
      gateways: summaries,
    });
  }

  @Public()
  @Get('callback')
  async callback(
    @Req() request: Request,
    @Res() response: Response,
    @Query('state') state?: string,
    @Query('code') code?: string,
    @Query('error') error?: string,
    @Query('error_description') errorDescription?: string,
    @Query('iss') iss?: string,
  ): Promise<void> {
    const pending = parseCookies(request.headers.cookie).get(PENDING_COOKIE);
    response.clearCookie(PENDING_COOKIE, this.cookieOptions(request));
    let gatewayId: string;
    try {
      gatewayId = await this.connections.finish(
        pending,
        {
          state: str(state),
          code: str(code),
          error: str(error),
          errorDescription: str(errorDescription),
          iss: str(iss),
        },
        request.principal,
      );
    } catch (failure) {
      if (!(failure instanceof GatewayException)) throw failure;
      await this.pages.render(
        request,
        response,
        'connection-done',
        { title: 'Not connected', section: 'connections', ok: false, message: failure.message },
        400,
      );
      return;
    }
    // A page of its own rather than a redirect: the Strict session cookie is not sent on a
    // redirect chain that a cross-site page began, so the gateway's page would ask to log in.
    await this.pages.render(request, response, 'connection-done', {
      title: 'Account connected',
      section: 'connections',
      ok: true,
      href: `/admin/connections/${gatewayId}`,
    });
  }

  @Get(':id')
  async detail(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const view = await this.connections.view(id, request.principal!);
    await this.pages.render(request, response, 'connection', {
      title: `Connect ${view.gateway.name}`,
      section: 'connections',
      gateway: view.gateway,
      mine: view.mine && { state: stateView(view.mine.state) },
      shared: view.shared && { ...view.shared, state: stateView(view.shared.state) },
      perUser: view.gateway.mode === 'per-user',
      noUser: view.gateway.mode === 'per-user' && !request.principal!.userId,
    });
  }

  @Post(':id/connect')
  async connect(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const principal: Principal = request.principal!;
    const started = await this.connections.begin(id, principal, accountOf(body));
    if (!started) {
      this.pages.redirect(request, response, `/admin/connections/${id}`, {
        kind: 'success',
        text: 'Portico obtained a token with its client credentials.',
      });
      return;
    }
    response.cookie(PENDING_COOKIE, started.pending, {
      ...this.cookieOptions(request),
      maxAge: 10 * 60_000,
    });
    // A page that moves on by itself rather than a redirect: the pages' CSP allows forms to
    // submit only to Portico (`form-action 'self'`), which browsers apply to the redirects a
    // form post leads to as well. It also shows where the person is sent.
    await this.pages.render(request, response, 'connection-redirect', {
      title: 'Continue at the provider',
      section: 'connections',
      refreshTo: started.authorizationUrl,
      authorizationUrl: started.authorizationUrl,
      provider: new URL(started.authorizationUrl).origin,
    });
  }

  @Post(':id/disconnect')
  async disconnect(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const removed = await this.connections.disconnect(id, request.principal!, accountOf(body));
    this.pages.redirect(request, response, `/admin/connections/${id}`, {
      kind: 'info',
      text: removed
        ? 'Disconnected: Portico forgot the tokens.'
        : 'There was nothing to disconnect.',
    });
  }

  private cookieOptions(request: Request) {
    return { ...cookieOptions(this.config, request, COOKIE_PATH), sameSite: 'lax' as const };
  }
}

function accountOf(body: FormBody): ConnectionAccount {
  return formField(body, 'account') === 'gateway' ? 'gateway' : 'mine';
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Times as ISO strings, as the views' `time` helper takes them. */
function stateView(state: OAuthConnectionState | null) {
  return (
    state && {
      connected: state.connected,
      expiresAt: state.expiresAt?.toISOString() ?? null,
      refreshedAt: state.refreshedAt?.toISOString() ?? null,
      refreshError: state.refreshError,
    }
  );
}
