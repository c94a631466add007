import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Agent, type Dispatcher, Pool } from 'undici';

const CONNECTIONS_PER_ORIGIN = 64;

/** The connections of one upstream origin. */
export interface UpstreamDispatchers {
  /** Keep-alive pool for requests, which are short: shared by every session of the origin. */
  requests: Dispatcher;
  /**
   * For the long-lived GET streams of upstream sessions, apart from `requests`: a stream holds its
   * connection for as long as the session lives, and must not starve the calls.
   */
  streams: Dispatcher;
}

/** Connection pools to upstreams, one per origin, shared by every session. */
@Injectable()
export class UpstreamPools implements OnApplicationShutdown {
  private readonly pools = new Map<string, Pool>();
  private readonly streams = new Agent({ keepAliveTimeout: 1000 });

  for(url: URL): UpstreamDispatchers {
    let pool = this.pools.get(url.origin);
    if (!pool) {
      pool = new Pool(url.origin, {
        connections: CONNECTIONS_PER_ORIGIN,
        keepAliveTimeout: 30_000,
      });
      this.pools.set(url.origin, pool);
    }
    return { requests: pool, streams: this.streams };
  }

  async onApplicationShutdown(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all([...pools.map((pool) => pool.destroy()), this.streams.destroy()]);
  }
}
