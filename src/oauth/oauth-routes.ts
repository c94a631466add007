import { type INestApplication } from '@nestjs/common';
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import { type OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { type NextFunction, type Request, type Response } from 'express';
import { AppConfig } from '../config/app-config';
import { MCP_SCOPE, PorticoOAuthProvider } from './oauth-server.provider';

export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
};

/** RFC 8414 metadata of the embedded authorization server. */
export function authorizationServerMetadata(publicUrl: string): OAuthMetadata {
  const issuer = new URL(publicUrl).origin;
  const at = (path: string) => `${publicUrl}${path}`;
  return {
    issuer,
    authorization_endpoint: at(OAUTH_PATHS.authorize),
    token_endpoint: at(OAUTH_PATHS.token),
    registration_endpoint: at(OAUTH_PATHS.register),
    revocation_endpoint: at(OAUTH_PATHS.revoke),
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    scopes_supported: [MCP_SCOPE],
    authorization_response_iss_parameter_supported: true,
  };
}

/**
 * Mounts the SDK's authorization server handlers (authorize, token, register, revoke, and the
 * RFC 8414 metadata) ahead of Nest's CORS, so that their own permissive CORS answers browsers'
 * preflights: these endpoints carry no cookies and are meant for clients of any origin.
 */
export function setUpOAuth(app: INestApplication): void {
  const provider = app.get(PorticoOAuthProvider);
  const config = app.get(AppConfig);
  app.use(
    '/.well-known/oauth-authorization-server',
    metadataHandler(authorizationServerMetadata(config.publicUrl)),
  );
  // The SDK's per-address limits (50 token requests in 15 minutes) would throttle a whole office
  // behind one NAT address refreshing its tokens; these allow that and still stop a flood.
  const window = 15 * 60 * 1000;
  app.use(
    OAUTH_PATHS.authorize,
    authorizationHandler({ provider, rateLimit: { windowMs: window, max: 600 } }),
  );
  app.use(
    OAUTH_PATHS.token,
    tokenHandler({ provider, rateLimit: { windowMs: window, max: 1200 } }),
  );
  app.use(
    OAUTH_PATHS.register,
    clientRegistrationHandler({
      clientsStore: provider.clientsStore,
      rateLimit: { windowMs: 60 * 60 * 1000, max: 100 },
    }),
  );
  app.use(
    OAUTH_PATHS.revoke,
    revocationHandler({ provider, rateLimit: { windowMs: window, max: 600 } }),
  );
  // Protected resource metadata is Nest's (it names every endpoint); preflights come here.
  app.use(
    '/.well-known/oauth-protected-resource',
    (request: Request, response: Response, next: NextFunction) => {
      if (request.method !== 'OPTIONS') {
        next();
        return;
      }
      response
        .status(204)
        .setHeader('Access-Control-Allow-Origin', '*')
        .setHeader('Access-Control-Allow-Methods', 'GET')
        .setHeader('Access-Control-Allow-Headers', 'MCP-Protocol-Version')
        .end();
    },
  );
}
