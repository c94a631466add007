import { loadConfig } from '../../src/config/load-config';
import { Gateway } from '../../src/gateways/gateway.entity';
import {
  SHARED_OWNER,
  UpstreamOAuthToken,
} from '../../src/upstream/oauth/upstream-oauth-token.entity';
import { type OAuthUpstream } from '../../src/upstream/oauth/oauth-exchange';
import { UpstreamOAuth } from '../../src/upstream/oauth/upstream-oauth.service';
import { DatabaseOAuthStore } from '../../src/upstream/oauth/upstream-oauth.store';
import { Metrics } from '../../src/observability/metrics';
import { connectShared, startOAuthUpstream } from '../fixtures/oauth-upstream';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';
import { tempDataDir } from '../support/temp-dir';

describe('the upstream OAuth store', () => {
  let db: TestDataSource;

  beforeAll(async () => {
    db = await openTestDataSource();
  });

  afterAll(() => db?.close());

  it('records a refresh failure whose reason an authorization server wrote with what PostgreSQL cannot store', async () => {
    const gateway = await db.dataSource
      .getRepository(Gateway)
      .save({ name: 'oauth', slug: 'oauth', url: 'http://127.0.0.1:1/mcp' });
    const store = new DatabaseOAuthStore(db.dataSource, loadConfig({ DATA_DIR: tempDataDir() }));
    const stored = () =>
      db.dataSource
        .getRepository(UpstreamOAuthToken)
        .findOneByOrFail({ gatewayId: gateway.id, owner: SHARED_OWNER });
    // The first failure inserts the record, a second one updates it.
    await store.records.tokenFailed(gateway.id, SHARED_OWNER, 'invalid\u0000 grant \ud800', false);
    expect((await stored()).refreshError).toBe('invalid grant \uFFFD');
    await store.records.tokenFailed(gateway.id, SHARED_OWNER, 'revoked\u0000 \udc00', true);
    expect((await stored()).refreshError).toBe('revoked \uFFFD');
  });
  it('keeps tokens whose lifetime no date can hold as tokens of unknown expiry', async () => {
    const fixture = await startOAuthUpstream({ accessTokenTtlSeconds: 10 ** 13 });
    try {
      const gateway = await db.dataSource
        .getRepository(Gateway)
        .save({ name: 'forever', slug: 'forever', url: fixture.mcpUrl('shared') });
      const settings = loadConfig({ DATA_DIR: tempDataDir() });
      const store = new DatabaseOAuthStore(db.dataSource, settings);
      const oauth = new UpstreamOAuth(store, settings, settings, settings, new Metrics());
      const upstream: OAuthUpstream = {
        gatewayId: gateway.id,
        url: fixture.mcpUrl('shared'),
        settings: { type: 'oauth', mode: 'shared' },
      };
      await connectShared(fixture, oauth, upstream, 'alice', 'forever');
      await expect(oauth.accessToken(upstream, SHARED_OWNER)).resolves.toEqual(expect.any(String));
      const record = await store.records.token(gateway.id, SHARED_OWNER);
      expect(record).toMatchObject({ expiresAt: null, refreshError: null });
    } finally {
      await fixture.close();
    }
  });
});
