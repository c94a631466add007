import { Injectable } from '@nestjs/common';
import { ExternalIssuer } from '../auth/external-issuer';
import { OAuthAccessTokens } from '../auth/oauth-access-token';

/**
 * The authorization servers whose tokens Portico accepts, as protected resource metadata lists
 * them: the embedded one first, which a client that knows none of them uses.
 */
@Injectable()
export class AuthorizationServers {
  constructor(
    private readonly accessTokens: OAuthAccessTokens,
    private readonly external: ExternalIssuer,
  ) {}

  issuers(): string[] {
    const external = this.external.issuer;
    return external === null ? [this.accessTokens.issuer] : [this.accessTokens.issuer, external];
  }
}
