import { loadConfig } from '../../src/config/load-config';
import { Metrics } from '../../src/observability/metrics';
import { SHARED_OWNER } from '../../src/upstream/oauth/upstream-oauth-token.entity';
import { type OAuthUpstream } from '../../src/upstream/oauth/oauth-exchange';
import { UpstreamOAuth } from '../../src/upstream/oauth/upstream-oauth.service';
import { MemoryOAuthStore } from '../../src/upstream/oauth/upstream-oauth.store';
import { UpstreamAuthorizationRequired } from '../../src/upstream/upstream-error';
import {
  connectShared,
  type OAuthUpstreamFixture,
  startOAuthUpstream,
} from '../fixtures/oauth-upstream';
import { tempDataDir } from '../support/temp-dir';
import { describeEmbedded } from '../support/describe-on-postgres';

/** The scopes an authorization URL asks for. */
function scopesOf(authorizationUrl: string): string[] {
  return (new URL(authorizationUrl).searchParams.get('scope') ?? '').split(' ').filter(Boolean);
}

describeEmbedded('UpstreamOAuth when the upstream asks for more scope', () => {
  let fixture: OAuthUpstreamFixture;

  beforeAll(async () => {
    fixture = await startOAuthUpstream();
  });
  afterAll(() => fixture.close());

  it('asks for what was granted and what the upstream wants at the next authorization', async () => {
    const settings = loadConfig({ DATA_DIR: tempDataDir() });
    const oauth = new UpstreamOAuth(
      new MemoryOAuthStore(),
      settings,
      settings,
      settings,
      new Metrics(),
    );
    const upstream: OAuthUpstream = {
      gatewayId: 'g',
      url: fixture.mcpUrl('shared'),
      settings: { type: 'oauth', mode: 'shared' },
    };
    const first = await connectShared(fixture, oauth, upstream, 'alice', 'first');
    expect(scopesOf(first)).toEqual(['mcp', 'offline_access']);
    await expect(oauth.accessToken(upstream, SHARED_OWNER)).resolves.toEqual(expect.any(String));

    const refusal = await oauth.tooNarrow(upstream, SHARED_OWNER, 'mcp:admin');
    expect(refusal).toBeInstanceOf(UpstreamAuthorizationRequired);
    expect(refusal.message).toContain('scope "mcp:admin"');
    const second = await oauth.begin(upstream, 'second');
    expect(scopesOf(second.authorizationUrl).sort()).toEqual([
      'mcp',
      'mcp:admin',
      'offline_access',
    ]);
  });
});
