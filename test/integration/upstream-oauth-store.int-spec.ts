import { loadConfig } from '../../src/config/load-config';
import { Gateway } from '../../src/gateways/gateway.entity';
import {
  SHARED_OWNER,
  UpstreamOAuthToken,
} from '../../src/upstream/oauth/upstream-oauth-token.entity';
import { DatabaseOAuthStore } from '../../src/upstream/oauth/upstream-oauth.store';
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
});
