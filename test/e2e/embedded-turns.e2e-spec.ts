import { DataSource } from 'typeorm';
import { describeEmbedded } from '../support/describe-on-postgres';
import { startTestApp, type TestApp } from '../support/test-app';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEmbedded('the embedded database behind a long transaction', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A connection wait far shorter than the transaction below, as a sync of 20,000 tools
    // (about 8 s) outlasts the default 5 s.
    t = await startTestApp({
      env: { DATABASE_CONNECT_TIMEOUT_MS: '200', DATABASE_QUERY_TIMEOUT_MS: '10000' },
    });
  });

  afterAll(() => t?.close());

  it('answers every request once the transaction ends, none of them 503', async () => {
    // The caller's identity is read once and kept: these requests go straight to the catalogue.
    expect((await t.api().get('/api/v1/gateways')).status).toBe(200);
    // The transaction keeps the one backend to its end, with the event loop free meanwhile.
    const held = t.app.get(DataSource).transaction(async (em) => {
      await em.query('SELECT 1');
      await sleep(1500);
    });
    await sleep(100);
    // More requests than the pool has connections: some open one or wait for one.
    const answers = await Promise.all(
      Array.from({ length: 16 }, () => t.api().get('/api/v1/gateways')),
    );
    await held;
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
  });
});
