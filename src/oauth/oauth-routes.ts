import { type INestApplication } from '@nestjs/common';
import { type OAuthMetadata } from '@modelcontextprotocol/server';
import { type NextFunction, type Request, type Response } from 'express';
import { ServerSettings } from '../config/slices/server.settings';
import { authorizeEndpoint } from './endpoints/authorize.endpoint';
import { oauthEndpoint } from './endpoints/oauth-endpoint';
import { registerEndpoint } from './endpoints/register.endpoint';
import { revokeEndpoint } from './endpoints/revoke.endpoint';
import { tokenEndpoint } from './endpoints/token.endpoint';
import { OAuthGrants } from './oauth-grants.service';
import { MCP_SCOPE, PorticoOAuthProvider } from './oauth-server.provider';

export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
};

/**
 * RFC 8414 metadata of the embedded authorization server. Clients may register (RFC 7591, which
 * the 2026-07-28 MCP revision deprecates but keeps) or, where enabled, name themselves by the URL of
 * their Client ID Metadata Document.
 */
export function authorizationServerMetadata(
  publicUrl: string,
  clientIdMetadataDocuments: boolean,
): OAuthMetadata {
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
    client_id_metadata_document_supported: clientIdMetadataDocuments,
  };
}

/** Per client address and replica; an office behind one NAT address still refreshes its tokens. */
const WINDOW_SECONDS = 15 * 60;

/**
 * Mounts the authorization server's endpoints (authorize, token, register, revoke, and the
 * RFC 8414 metadata) ahead of Nest's CORS, so that their own permissive CORS answers browsers'
 * preflights: these endpoints carry no cookies and are meant for clients of any origin. Their
 * bodies come through the application's bounded parsers (size and depth) like every other.
 */
export function setUpOAuth(app: INestApplication): void {
  const provider = app.get(PorticoOAuthProvider);
  const grants = app.get(OAuthGrants);
  const clients = provider.clientsStore;
  const metadata = authorizationServerMetadata(
    app.get(ServerSettings).publicUrl,
    clients.documents.enabled,
  );
  app.use(
    '/.well-known/oauth-authorization-server',
    oauthEndpoint(
      {
        methods: ['GET'],
        anyOrigin: true,
        cacheable: true,
      },
      async (_request, response) => {
        response.status(200).json(metadata);
      },
    ),
  );
  app.use(
    OAUTH_PATHS.authorize,
    oauthEndpoint(
      {
        methods: ['GET', 'POST'],
        anyOrigin: false,
        limit: {
          points: 600,
          windowSeconds: WINDOW_SECONDS,
          message: 'You have exceeded the rate limit for authorization requests',
        },
      },
      authorizeEndpoint(provider),
    ),
  );
  app.use(
    OAUTH_PATHS.token,
    oauthEndpoint(
      {
        methods: ['POST'],
        anyOrigin: true,
        limit: {
          points: 1200,
          windowSeconds: WINDOW_SECONDS,
          message: 'You have exceeded the rate limit for token requests',
        },
      },
      tokenEndpoint(clients, grants),
    ),
  );
  app.use(
    OAUTH_PATHS.register,
    oauthEndpoint(
      {
        methods: ['POST'],
        anyOrigin: true,
        limit: {
          points: 100,
          windowSeconds: 60 * 60,
          message: 'You have exceeded the rate limit for client registration requests',
        },
      },
      registerEndpoint(clients),
    ),
  );
  app.use(
    OAUTH_PATHS.revoke,
    oauthEndpoint(
      {
        methods: ['POST'],
        anyOrigin: true,
        limit: {
          points: 600,
          windowSeconds: WINDOW_SECONDS,
          message: 'You have exceeded the rate limit for token revocation requests',
        },
      },
      revokeEndpoint(clients, grants),
    ),
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
