import { Body, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { type OAuthClientInformationFull } from '@modelcontextprotocol/server';
import { type Request, type Response } from 'express';
import { DataSource } from 'typeorm';
import { AdminController } from '../admin/admin-controller.decorator';
import { AdminPages } from '../admin/admin-pages.service';
import { ADMIN_CSP } from '../admin/admin-views';
import { type FormBody, formField } from '../admin/form-body';
import { MinRole } from '../auth/auth.decorators';
import { McpAccess } from '../auth/mcp-access';
import { ServerSettings } from '../config/slices/server.settings';
import { Server } from '../servers/server.entity';
import { type AuthorizationRequest } from './authorization-request';
import { isClientIdUrl } from './client-metadata/client-metadata-document';
import { OAuthError } from './endpoints/oauth-error';
import { OAuthGrants } from './oauth-grants.service';
import { resourceTarget } from '../auth/oauth-resource';
import { PorticoOAuthProvider } from './oauth-server.provider';
import { isLoopbackRedirect } from './redirect-uri';

/**
 * The consent step of the authorization code flow, in the admin pages' style: the user signs in
 * (password or SSO, through the login page), sees which client wants which MCP endpoint, and
 * allows or denies. Either way the browser goes back to the client's redirect URI.
 */
@AdminController('oauth/consent')
@MinRole('member')
export class OAuthConsentController {
  constructor(
    private readonly provider: PorticoOAuthProvider,
    private readonly grants: OAuthGrants,
    private readonly mcp: McpAccess,
    private readonly pages: AdminPages,
    private readonly dataSource: DataSource,
    private readonly config: ServerSettings,
  ) {}

  @Get()
  async page(
    @Req() request: Request,
    @Res() response: Response,
    @Query('request') sealed: unknown,
  ): Promise<void> {
    const pending = this.provider.requests.open(sealed);
    if (!pending) return this.expired(request, response);
    let client: OAuthClientInformationFull | undefined;
    try {
      client = await this.provider.clientsStore.getClient(pending.clientId);
    } catch (error) {
      // A metadata document that went bad since /oauth/authorize read it: nothing to consent to.
      if (!(error instanceof OAuthError)) throw error;
      return this.unusableClient(request, response, error.message);
    }
    // A client named by its document's URL: the host is what the user can check (draft §8.5).
    const clientHost = isClientIdUrl(pending.clientId) ? new URL(pending.clientId).host : null;
    const allowed = await this.allowed(request, pending);
    // The decision's redirect leaves for the client's redirect URI, which form-action must allow.
    response.setHeader('Content-Security-Policy', consentPolicy(pending.redirectUri));
    await this.pages.render(
      request,
      response,
      'consent',
      {
        title: 'Allow access',
        section: 'consent',
        request: sealed,
        clientName: client?.client_name ?? pending.clientId,
        clientUri: client?.client_uri ?? null,
        clientHost,
        clientId: clientHost === null ? null : pending.clientId,
        // Any program on the user's computer can receive a loopback redirect and claim the name.
        loopbackWarning: clientHost !== null && isLoopbackRedirect(pending.redirectUri),
        redirectUri: pending.redirectUri,
        // Where the code goes, which the user can check whatever the client calls itself.
        redirectHost: /^https?:$/.test(new URL(pending.redirectUri).protocol)
          ? new URL(pending.redirectUri).host
          : null,
        resource: pending.resource,
        serverName: await this.serverName(pending),
        allowed,
        username: request.principal!.name,
      },
      allowed ? 200 : 403,
    );
  }

  @Post()
  @HttpCode(303)
  async decide(
    @Req() request: Request,
    @Res() response: Response,
    @Body() body: FormBody,
  ): Promise<void> {
    const pending = this.provider.requests.open(formField(body, 'request'));
    if (!pending) return this.expired(request, response);
    const target = new URL(pending.redirectUri);
    if (pending.state !== null) target.searchParams.set('state', pending.state);
    target.searchParams.set('iss', this.provider.issuer);
    if (formField(body, 'decision') === 'allow' && (await this.allowed(request, pending))) {
      const code = await this.grants.authorize(request.principal!.userId!, pending);
      if (code === null) return this.expired(request, response);
      target.searchParams.set('code', code);
    } else {
      target.searchParams.set('error', 'access_denied');
    }
    response.redirect(303, target.href);
  }

  /** Whether the signed-in user may use the endpoint the client asks for. */
  private async allowed(request: Request, pending: AuthorizationRequest): Promise<boolean> {
    const principal = request.principal!;
    const target = resourceTarget(pending.resource, this.config.publicUrl);
    if (!target || principal.userId === null) return false;
    return (await this.mcp.check(principal, target)).allowed;
  }

  private async serverName(pending: AuthorizationRequest): Promise<string | null> {
    const target = resourceTarget(pending.resource, this.config.publicUrl);
    if (target?.kind !== 'server') return null;
    const server = await this.dataSource
      .getRepository(Server)
      .findOne({ select: { name: true }, where: { id: target.serverId } });
    return server?.name ?? null;
  }

  private async unusableClient(
    request: Request,
    response: Response,
    message: string,
  ): Promise<void> {
    await this.pages.render(
      request,
      response,
      'error',
      {
        title: 'Client not usable',
        section: 'error',
        status: 400,
        message: `${message}. Start again from your MCP client.`,
        offerLogin: false,
      },
      400,
    );
  }

  private async expired(request: Request, response: Response): Promise<void> {
    await this.pages.render(
      request,
      response,
      'error',
      {
        title: 'Sign-in request expired',
        section: 'error',
        status: 400,
        message:
          'This sign-in request is invalid, has expired or was answered already. Start again from your MCP client.',
        offerLogin: false,
      },
      400,
    );
  }
}

/** The admin policy, with form-action also allowing where the decision sends the browser. */
export function consentPolicy(redirectUri: string): string {
  const url = new URL(redirectUri);
  const destination =
    url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  return ADMIN_CSP.replace("form-action 'self'", `form-action 'self' ${destination}`);
}
