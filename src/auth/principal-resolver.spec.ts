import { type Settings } from '../config/settings';
import { type AdminSessionService } from './admin-session.service';
import { type ApiTokenVerifier } from './api-token-verifier';
import { type ExternalIssuer } from './external-issuer';
import { type GrantStatus } from './grant-status';
import { OAuthAccessTokens } from './oauth-access-token';
import { PrincipalResolver } from './principal-resolver';
import { TokenService } from './token.service';
import { type EndedSessions } from './ended-sessions';
import { type Identity, type UserDirectory } from './user-directory';

const ADMIN: Identity = {
  id: 'u1',
  username: 'admin',
  role: 'admin',
  teamIds: [],
  disabled: false,
  source: 'local',
};

describe('PrincipalResolver: the expiry a principal carries', () => {
  const config = {
    jwtSecret: 'a-secret-long-enough-for-hs256-signing',
    publicUrl: 'http://portico.test',
    tokenTtlSeconds: 3600,
  } as unknown as Settings;
  const tokens = new TokenService(config, config);
  const accessTokens = new OAuthAccessTokens(config, config);
  const users = { get: async (id: string) => (id === ADMIN.id ? ADMIN : null) };
  const resolver = new PrincipalResolver(
    tokens,
    {} as ApiTokenVerifier,
    users as unknown as UserDirectory,
    {} as AdminSessionService,
    accessTokens,
    { active: async () => true } as unknown as GrantStatus,
    { issuer: null } as unknown as ExternalIssuer,
    { ended: async () => false } as unknown as EndedSessions,
  );

  it("is a login token's exp", async () => {
    const issued = tokens.issueLogin(ADMIN.id, 120);
    const principal = await resolver.fromBearer(issued.accessToken);
    expect(principal).toMatchObject({ source: 'login-token', subject: 'user:u1' });
    expect(principal.expiresAt).toBe(Date.parse(issued.expiresAt));
    // Read again from the verified-token memory: the same expiry.
    expect((await resolver.fromBearer(issued.accessToken)).expiresAt).toBe(principal.expiresAt);
  });

  it("is an OAuth access token's exp", async () => {
    const token = await accessTokens.sign(
      { sub: ADMIN.id, aud: 'http://portico.test/mcp', client_id: 'c1', scope: '', gid: 'g1' },
      300,
    );
    const { exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
      exp: number;
    };
    const principal = await resolver.fromBearer(token);
    expect(principal).toMatchObject({ source: 'oauth', tokenId: 'g1' });
    expect(principal.expiresAt).toBe(exp * 1000);
  });
});
