import { Injectable } from '@nestjs/common';
import { OAuthAccessTokens } from '../auth/oauth-access-token';

/**
 * The authorization servers whose tokens Portico accepts, as protected resource metadata lists
 * them: the embedded one first, which a client that knows none of them uses.
 */
@Injectable()
export class AuthorizationServers {
  constructor(private readonly accessTokens: OAuthAccessTokens) {}

  issuers(): string[] {
    return [this.accessTokens.issuer];
  }
}
