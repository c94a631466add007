import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AdminSessionService } from './admin-session.service';
import { ApiTokenVerifier } from './api-token-verifier';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { BreakGlassAdmin } from './break-glass-admin';
import { ExternalIssuer } from './external-issuer';
import { GrantStatus } from './grant-status';
import { LoginThrottle } from './login-throttle';
import { McpAccess } from './mcp-access';
import { McpAuthorizer } from './mcp-authorizer';
import { OAuthAccessTokens } from './oauth-access-token';
import { OidcLogin } from './oidc-login';
import { PasswordLogin } from './password-login';
import { CallerTokens, PrincipalResolver } from './principal-resolver';
import { ServerTeams } from './server-teams';
import { TeamNames } from './team-names';
import { TokenService } from './token.service';
import { TokenUsage } from './token-usage';
import { EndedSessions } from './ended-sessions';
import { UserDirectory } from './user-directory';

/** Who a request acts for, and the one guard that decides what it may do. */
@Global()
@Module({
  controllers: [AuthController],
  providers: [
    AdminSessionService,
    ApiTokenVerifier,
    BreakGlassAdmin,
    CallerTokens,
    EndedSessions,
    ExternalIssuer,
    GrantStatus,
    LoginThrottle,
    McpAccess,
    McpAuthorizer,
    OAuthAccessTokens,
    OidcLogin,
    PasswordLogin,
    PrincipalResolver,
    ServerTeams,
    TeamNames,
    TokenService,
    TokenUsage,
    UserDirectory,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [
    AdminSessionService,
    EndedSessions,
    CallerTokens,
    ExternalIssuer,
    TeamNames,
    ApiTokenVerifier,
    GrantStatus,
    McpAccess,
    McpAuthorizer,
    OAuthAccessTokens,
    OidcLogin,
    PasswordLogin,
    PrincipalResolver,
    TokenService,
    TokenUsage,
    UserDirectory,
  ],
})
export class AuthModule {}
