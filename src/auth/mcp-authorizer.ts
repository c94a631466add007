import { type IncomingMessage, type ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { AuthErrorCode, AuthException } from './auth.exception';
import { McpAccess, type McpTarget, NO_SUCH_SERVER } from './mcp-access';
import { type Principal } from './principal';
import { bearerToken, CallerTokens, PrincipalResolver } from './principal-resolver';

/**
 * Who an MCP request acts for, and whether they may use its endpoint: for the AuthGuard (the older
 * HTTP+SSE transport) and McpHttpHandler (Streamable HTTP) alike.
 */
@Injectable()
export class McpAuthorizer {
  constructor(
    private readonly resolver: PrincipalResolver,
    private readonly access: McpAccess,
    private readonly callerTokens: CallerTokens,
  ) {}

  /**
   * The principal of a request's bearer token, allowed to use the endpoint; else an
   * AuthException, with the `WWW-Authenticate` challenge clients follow set on the response.
   */
  async authorize(
    request: IncomingMessage,
    target: McpTarget,
    response: ServerResponse,
  ): Promise<Principal> {
    let principal: Principal;
    let token: string;
    try {
      token = bearerToken(request);
      principal = await this.resolver.fromBearer(token);
    } catch (error) {
      if (error instanceof AuthException && error.code === AuthErrorCode.Unauthenticated) {
        response.setHeader(
          'WWW-Authenticate',
          this.access.challenge(
            target,
            request.headers.authorization
              ? { error: 'invalid_token', message: error.message }
              : undefined,
          ),
        );
      }
      throw error;
    }
    const decision = await this.access.check(principal, target);
    // Word for word a missing server's answer, with no challenge: one it may not see is missing.
    if (!decision.allowed && decision.status === 404)
      throw new AuthException(AuthErrorCode.NoSuchEndpoint, NO_SUCH_SERVER);
    if (!decision.allowed) {
      response.setHeader('WWW-Authenticate', this.access.challenge(target, decision));
      throw new AuthException(
        decision.status === 401 ? AuthErrorCode.Unauthenticated : AuthErrorCode.Forbidden,
        decision.message,
      );
    }
    this.callerTokens.remember(principal, token);
    return principal;
  }
}
