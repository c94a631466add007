import { getEventListeners } from 'node:events';
import { Logger } from '@nestjs/common';
import { type DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { CatalogueReader } from '../../src/sync/catalogue.reader';
import { GatewayWatch } from '../../src/sync/gateway-watch';
import { UpstreamConnector } from '../../src/upstream/upstream-connector.service';
import { UpstreamPools } from '../../src/upstream/upstream-pools.service';
import { UpstreamTargets } from '../../src/upstream/upstream-targets.service';
import { startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { eventually } from '../support/mcp-client';
import { tempDataDir } from '../support/temp-dir';

describe('a gateway watch', () => {
  let upstream: UpstreamFixture;
  let pools: UpstreamPools;

  beforeAll(async () => {
    upstream = await startUpstream({ name: 'watched' });
  });

  afterAll(async () => {
    await pools.onApplicationShutdown();
    await upstream.close();
  });

  it('keeps its listener count flat however many pings it sends', async () => {
    const config = loadConfig({ DATA_DIR: tempDataDir() });
    pools = new UpstreamPools();
    const reader = new CatalogueReader(
      new UpstreamConnector(config, pools),
      new UpstreamTargets(null as unknown as DataSource, config),
    );
    let pings = 0;
    const watch = new GatewayWatch(
      {
        id: 'g',
        slug: 'watched',
        url: upstream.url,
        transport: 'streamable-http',
        authType: 'none',
        authSecret: null,
      },
      reader,
      { changed: () => undefined, lost: () => undefined, seen: () => (pings += 1) },
      new Logger('test'),
      5,
    );
    const signal = (watch as unknown as { abort: AbortController }).abort.signal;
    watch.start();
    await eventually(() => expect(pings).toBeGreaterThanOrEqual(5));
    const early = getEventListeners(signal, 'abort').length;
    await eventually(() => expect(pings).toBeGreaterThanOrEqual(100));
    expect(getEventListeners(signal, 'abort').length).toBeLessThanOrEqual(early);
    expect(early).toBeLessThanOrEqual(1);
    await watch.stop();
  });
});
