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

/**
 * The upstream code of the gateway (connector, era probe, admissions, OAuth) wired by hand, for a
 * process without Portico's database or Nest: what it learns (verdicts, a registered client,
 * tokens) lives as long as the process.
 */
export class StandaloneUpstreams {
  readonly connector: UpstreamConnector;
  readonly oauth: UpstreamOAuth;
  private readonly pools: UpstreamPools;
  private readonly stdio: StdioSupervisor;

  constructor(config: Settings) {
    const metrics = new Metrics();
    const records = new NoGatewayRecords();
    this.pools = new UpstreamPools(config);
    this.stdio = new StdioSupervisor(config, config, records);
    this.oauth = new UpstreamOAuth(new MemoryOAuthStore(), config, config, config, metrics);
    this.connector = new UpstreamConnector(
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
  }

  async close(): Promise<void> {
    await this.stdio.onApplicationShutdown();
    await this.pools.onApplicationShutdown();
  }
}
