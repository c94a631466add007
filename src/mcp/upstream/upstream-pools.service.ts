import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'undici';

const CONNECTIONS_PER_ORIGIN = 64;

/** Keep-alive connection pools to upstreams, one per origin, shared by every session. */
@Injectable()
export class UpstreamPools implements OnApplicationShutdown {
  private readonly pools = new Map<string, Pool>();

  for(url: URL): Pool {
    let pool = this.pools.get(url.origin);
    if (!pool) {
      pool = new Pool(url.origin, {
        connections: CONNECTIONS_PER_ORIGIN,
        keepAliveTimeout: 30_000,
      });
      this.pools.set(url.origin, pool);
    }
    return pool;
  }

  async onApplicationShutdown(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.destroy()));
  }
}
