import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { stringify } from 'yaml';
import { Gateway } from '../../src/gateways/gateway.entity';
import { GatewayWatchers } from '../../src/sync/gateway-watchers';
import { SyncService } from '../../src/sync/sync.service';
import { upstreamFingerprint } from '../../src/upstream/upstream-target';
import { LIST_CHANGED_MAX_WAIT_MS } from '../../src/sync/gateway-watch';
import { echoTool, startUpstream, UpstreamFixture } from '../fixtures/upstream-server';
import { tempDataDir } from '../support/temp-dir';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const upstreams: UpstreamFixture[] = [];

async function upstream(...args: Parameters<typeof startUpstream>): Promise<UpstreamFixture> {
  const started = await startUpstream(...args);
  upstreams.push(started);
  return started;
}

afterAll(async () => {
  await Promise.all(upstreams.map((fixture) => fixture.close().catch(() => undefined)));
});

async function register(t: TestApp, name: string, url: string) {
  return (await t.api().post('/api/v1/gateways').send({ name, url }).expect(201)).body;
}

async function toolNames(t: TestApp, gatewayId: string): Promise<string[]> {
  const response = await t.api().get('/api/v1/tools').query({ gatewayId }).expect(200);
  return response.body.items.map((tool: { originalName: string }) => tool.originalName);
}

describe('sync without manual action, periodic sync off', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { SYNC_INTERVAL_SECONDS: '0' } });
  });

  afterAll(async () => {
    await t.close();
  });

  it('follows the upstream’s list_changed, one sync per burst', async () => {
    let listings = 0;
    const fixture = await upstream({
      tools: [echoTool('first', 'n')],
      onListPage: (cursor) => {
        if (cursor === undefined) listings += 1;
      },
    });
    const created = await register(t, 'Notifying', fixture.url);
    await waitFor(() => fixture.openStreams === 1, 'Portico to hold a notification stream open');
    expect(t.app.get(GatewayWatchers).watchedGatewayIds).toContain(created.id);
    const before = listings;

    fixture.setTool(echoTool('second', 'n'));
    for (let i = 0; i < 5; i++) await fixture.notifyToolsChanged();
    await waitFor(
      async () => (await toolNames(t, created.id)).includes('second'),
      'the notified tool to be synced',
    );
    expect(listings).toBe(before + 1);
    // A second sync of the same burst would come within the debounce's longest wait.
    await new Promise((resolve) => setTimeout(resolve, LIST_CHANGED_MAX_WAIT_MS / 3));
    expect(listings).toBe(before + 1);
    const gateway = (await t.api().get(`/api/v1/gateways/${created.id}`).expect(200)).body;
    expect(gateway.lastSyncReport).toMatchObject({ added: ['second'], unchanged: 1 });
  });

  it('marks a gateway whose upstream went away unreachable, and syncs it on reconnecting to the restarted upstream', async () => {
    const fixture = await upstream({ tools: [echoTool('before_restart', 'r')] });
    const created = await register(t, 'Restarting', fixture.url);
    await waitFor(() => fixture.openStreams === 1, 'the notification stream');
    const port = Number(new URL(fixture.url).port);
    await fixture.crash();
    const gatewayOf = async () =>
      (await t.api().get(`/api/v1/gateways/${created.id}`).expect(200)).body;
    await waitFor(
      async () => (await gatewayOf()).status === 'unreachable',
      'the lost upstream to be recorded',
    );
    expect((await gatewayOf()).lastError).toEqual(expect.any(String));

    const restarted = await new UpstreamFixture({ tools: [echoTool('after_restart', 'r')] }).start(
      port,
    );
    upstreams.push(restarted);
    await waitFor(
      async () => (await toolNames(t, created.id)).join() === 'after_restart',
      'the restarted upstream’s tools',
      15_000,
    );
    expect(await gatewayOf()).toMatchObject({ status: 'healthy', lastError: null });
  });

  it('closes the watch of a deactivated gateway and opens it again on activation', async () => {
    const fixture = await upstream({ tools: [echoTool('watched', 'w')] });
    const created = await register(t, 'Watched', fixture.url);
    await waitFor(() => fixture.openStreams === 1, 'the notification stream');
    await t.api().post(`/api/v1/gateways/${created.id}/deactivate`).expect(200);
    await waitFor(
      () => fixture.openStreams === 0 && fixture.sessionCount === 0,
      'the stream and the session to close',
    );
    expect(t.app.get(GatewayWatchers).watchedGatewayIds).not.toContain(created.id);
    await t.api().post(`/api/v1/gateways/${created.id}/activate`).expect(200);
    await waitFor(() => fixture.openStreams === 1, 'the stream to open again');
  });

  it('lets a late failure of the upstream a gateway left leave its health alone', async () => {
    const [first, second] = [
      await upstream({ tools: [echoTool('moved', 'first')] }),
      await upstream({ tools: [echoTool('moved', 'second')] }),
    ];
    const created = await register(t, 'Moving', first.url);
    const gateways = t.app.get(DataSource).getRepository(Gateway);
    const left = upstreamFingerprint(await gateways.findOneByOrFail({ id: created.id }));
    await t.api().patch(`/api/v1/gateways/${created.id}`).send({ url: second.url }).expect(200);
    const sync = t.app.get(SyncService);
    // What a watch or a sync still on the first upstream reports after the move.
    await sync.markFailed(created.id, 'unreachable', 'the first upstream went away', left);
    expect(await gateways.findOneByOrFail({ id: created.id })).toMatchObject({
      status: 'healthy',
      lastError: null,
    });
    const now = upstreamFingerprint(await gateways.findOneByOrFail({ id: created.id }));
    await sync.markFailed(created.id, 'unreachable', 'the second upstream went away', now);
    expect(await gateways.findOneByOrFail({ id: created.id })).toMatchObject({
      status: 'unreachable',
      lastError: 'the second upstream went away',
    });
  });
});

describe('periodic sync', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { SYNC_INTERVAL_SECONDS: '1' } });
  });

  afterAll(async () => {
    await t.close();
  });

  it('picks up upstream changes that nobody announced', async () => {
    const fixture = await upstream({ tools: [echoTool('steady', 'p')] });
    const created = await register(t, 'Polled', fixture.url);
    fixture.setTool(echoTool('quiet_addition', 'p'));
    fixture.removeTool('steady');
    await waitFor(
      async () => (await toolNames(t, created.id)).join() === 'quiet_addition',
      'the periodic sync',
    );
  });
});

describe("a change's wait for its sync, set in the configuration document", () => {
  it('answers once the sync has failed, when sync.changeWaitMs outlasts the upstream timeout', async () => {
    // An upstream that never answers: its sync fails after the 4 s timeout, past the default 3 s.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const document = join(tempDataDir(), 'portico.yaml');
    writeFileSync(
      document,
      stringify({ apiVersion: 'portico/v1', settings: { sync: { changeWaitMs: 10_000 } } }),
    );
    const t = await startTestApp({ env: { CONFIG_FILE: document, UPSTREAM_TIMEOUT_MS: '4000' } });
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
      const created = await t.api().post('/api/v1/gateways').send({ name: 'Silent', url });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        status: 'unreachable',
        lastError: expect.stringMatching(/no answer within 4000 ms/),
      });
    } finally {
      await t.close();
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
