import { type Settings } from '../config/settings';
import { Metrics } from '../observability/metrics';
import { NoGatewayRecords } from './gateway-records';
import { UpstreamOAuth } from './oauth/upstream-oauth.service';
import { MemoryOAuthStore } from './oauth/upstream-oauth.store';
import { StdioSupervisor } from './transport/stdio/stdio-supervisor.service';
import { UpstreamConnector } from './upstream-connector.service';
import { UpstreamEras } from './eras/upstream-eras.service';
import { UpstreamAdmissions } from './resilience/upstream-admissions.service';
import { UpstreamPools } from './transport/upstream-pools.service';
import { TokenExchange } from './token-exchange/token-exchange.service';
import { CallerTokens } from '../auth/principal-resolver';
import { InProcessEventBus } from '../events/in-process-event-bus';
import { ParkedCalls } from './sessions/parked-calls';
import { UpstreamClient } from './upstream-client';
import { NoStoredTargets, type UpstreamTargets } from './upstream-targets.service';

/**
 * The upstream client of the gateway (and below it the era probe, admissions, OAuth) wired by
 * hand, for a process without Portico's database or Nest: what it learns (verdicts, a registered
 * client, tokens) lives as long as the process. No gateway is stored, so connections are the
 * caller's own (`UpstreamClient.open`).
 */
export class StandaloneUpstreams {
  readonly client: UpstreamClient;
  readonly targets: UpstreamTargets;
  readonly oauth: UpstreamOAuth;
  private readonly pools: UpstreamPools;
  private readonly stdio: StdioSupervisor;

  constructor(config: Settings) {
    const metrics = new Metrics();
    const records = new NoGatewayRecords();
    this.pools = new UpstreamPools(config);
    this.stdio = new StdioSupervisor(config, config, records);
    this.oauth = new UpstreamOAuth(new MemoryOAuthStore(), config, config, config, metrics);
    const connector = new UpstreamConnector(
      config,
      config,
      this.pools,
      this.oauth,
      this.stdio,
      new UpstreamAdmissions(config, metrics),
      new UpstreamEras(config, records),
      // No caller here: a token-exchange upstream gets Portico's own token.
      new TokenExchange(config, new CallerTokens(), metrics),
    );
    this.targets = new NoStoredTargets(config);
    const bus = new InProcessEventBus();
    const parked = new ParkedCalls(config, bus, { value: 'standalone' });
    this.client = new UpstreamClient(connector, this.targets, bus, parked);
  }

  async close(): Promise<void> {
    await this.client.onModuleDestroy();
    await this.stdio.onApplicationShutdown();
    await this.pools.onApplicationShutdown();
  }
}
