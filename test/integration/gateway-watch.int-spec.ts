import { getEventListeners } from 'node:events';
import { Logger } from '@nestjs/common';
import { loadConfig } from '../../src/config/load-config';
import { CatalogueReader } from '../../src/sync/catalogue.reader';
import { GatewayWatch } from '../../src/sync/gateway-watch';
import { StandaloneUpstreams } from '../../src/upstream/standalone-upstreams';
import { startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { eventually } from '../support/mcp-client';
import { tempDataDir } from '../support/temp-dir';
import { describeEmbedded } from '../support/describe-on-postgres';

describeEmbedded('a gateway watch', () => {
  let upstream: UpstreamFixture;
  let upstreams: StandaloneUpstreams;

  beforeAll(async () => {
    upstream = await startUpstream({ name: 'watched' });
  });

  afterAll(async () => {
    await upstreams.close();
    await upstream.close();
  });

  it('keeps its listener count flat however many pings it sends', async () => {
    const config = loadConfig({ DATA_DIR: tempDataDir() });
    upstreams = new StandaloneUpstreams(config);
    const reader = new CatalogueReader(upstreams.client, upstreams.targets, config);
    // The watch's signal goes to every ping; counted each time a ping has been answered.
    const counts: number[] = [];
    const signalOf = (watch: GatewayWatch) =>
      (watch as unknown as { abort: AbortController }).abort.signal;
    const watch: GatewayWatch = new GatewayWatch(
      {
        id: 'g',
        slug: 'watched',
        url: upstream.url,
        transport: 'streamable-http',
        authType: 'none',
        authSecret: null,
        stdioCommand: null,
        stdioArgs: null,
        stdioCwd: null,
        stdioEnv: null,
        eraPin: 'auto',
      },
      reader,
      {
        changed: () => undefined,
        lost: () => undefined,
        seen: () => counts.push(getEventListeners(signalOf(watch), 'abort').length),
      },
      new Logger('test'),
      5,
    );
    watch.start();
    try {
      await eventually(() => expect(counts.length).toBeGreaterThanOrEqual(100));
      // A listener kept per ping would make this 1, 2, 3, ... 100.
      expect(Math.max(...counts)).toBe(0);
    } finally {
      await watch.stop();
    }
  });
});
