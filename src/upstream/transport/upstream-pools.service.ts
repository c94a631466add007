import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Agent, type Dispatcher, Pool } from 'undici';
import { UpstreamSettings } from '../../config/slices/upstream.settings';

/** The connections of one upstream. */
export interface UpstreamDispatchers {
  /** Keep-alive pool for requests, which are short: shared by every session of the gateway. */
  requests: Dispatcher;
  /**
   * For the long-lived GET streams of upstream sessions, apart from `requests`: a stream holds its
   * connection for as long as the session lives, and must not starve the calls.
   */
  streams: Dispatcher;
}

/**
 * Connection pools to upstreams, one per gateway (and origin), shared by every session. Per
 * gateway rather than per origin: two gateways behind one host (a proxy routing by path) must
 * not share sockets, or one that hangs would hold the other's. A pool has as many connections as
 * the gateway may have calls running (UPSTREAM_MAX_CONCURRENT), so a call never waits for one.
 */
@Injectable()
export class UpstreamPools implements OnApplicationShutdown {
  private readonly pools = new Map<string, Pool>();
  private readonly streams = new Agent({ keepAliveTimeout: 1000 });

  constructor(private readonly config: UpstreamSettings) {}

  for(gatewayId: string, url: URL): UpstreamDispatchers {
    const key = `${gatewayId} ${url.origin}`;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new Pool(url.origin, {
        connections: this.config.upstreamResilience.maxConcurrent,
        keepAliveTimeout: 30_000,
      });
      this.pools.set(key, pool);
    }
    return { requests: pool, streams: this.streams };
  }

  async onApplicationShutdown(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all([...pools.map((pool) => pool.destroy()), this.streams.destroy()]);
  }
}
