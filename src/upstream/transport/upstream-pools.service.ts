import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Agent, type Dispatcher, Pool } from 'undici';
import { UpstreamSettings } from '../../config/slices/upstream.settings';

/**
 * How long an idle pooled connection is kept. Under the 5 s idle limit of Node's and uvicorn's
 * servers: an upstream that does not say its own (`Keep-Alive: timeout=`; an event stream's answer
 * never does) closes a connection at 5 s, and a call sent on it just then fails with ECONNRESET
 * and cannot be sent again (a tool call is not idempotent). Closing first leaves no such moment.
 */
const IDLE_KEEP_MS = 4000;

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
        keepAliveTimeout: IDLE_KEEP_MS,
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
