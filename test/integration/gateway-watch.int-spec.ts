import { getEventListeners } from 'node:events';
import { Logger } from '@nestjs/common';
import { type DataSource } from 'typeorm';
import { NoGatewayRecords } from '../../src/upstream/gateway-records';
import { MemoryOAuthStore } from '../../src/upstream/oauth/upstream-oauth.store';
import { loadConfig } from '../../src/config/load-config';
import { Metrics } from '../../src/observability/metrics';
import { CatalogueReader } from '../../src/sync/catalogue.reader';
import { GatewayWatch } from '../../src/sync/gateway-watch';
import { UpstreamOAuth } from '../../src/upstream/oauth/upstream-oauth.service';
import { UpstreamConnector } from '../../src/upstream/upstream-connector.service';
import { UpstreamEras } from '../../src/upstream/eras/upstream-eras.service';
import { UpstreamAdmissions } from '../../src/upstream/resilience/upstream-admissions.service';
import { UpstreamPools } from '../../src/upstream/transport/upstream-pools.service';
import { UpstreamTargets } from '../../src/upstream/upstream-targets.service';
import { startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { eventually } from '../support/mcp-client';
import { tempDataDir } from '../support/temp-dir';
import { StdioSupervisor } from '../../src/upstream/transport/stdio/stdio-supervisor.service';
import { TokenExchange } from '../../src/upstream/token-exchange/token-exchange.service';
import { CallerTokens } from '../../src/auth/principal-resolver';
import { describeEmbedded } from '../support/describe-on-postgres';

describeEmbedded('a gateway watch', () => {
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
    pools = new UpstreamPools(config);
    const reader = new CatalogueReader(
      new UpstreamConnector(
        config,
        config,
        pools,
        new UpstreamOAuth(new MemoryOAuthStore(), config, config, config, new Metrics()),
        new StdioSupervisor(config, config, new NoGatewayRecords()),
        new UpstreamAdmissions(config, new Metrics()),
        new UpstreamEras(config, new NoGatewayRecords()),
        new TokenExchange(config, new CallerTokens(), new Metrics()),
      ),
      new UpstreamTargets(null as unknown as DataSource, config),
    );
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
