import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * - `pass`: bytes flow both ways;
 * - `refuse`: the port stops listening (ECONNREFUSED) and every open connection is closed;
 * - `blackhole`: connections are accepted and kept, and every byte either way is dropped, as in
 *   a network partition.
 */
export type ProxyMode = 'pass' | 'refuse' | 'blackhole';

const DEFAULT_PORTS: Record<string, number> = {
  'postgres:': 5432,
  'postgresql:': 5432,
  'redis:': 6379,
};

interface Pair {
  client: Socket;
  /** Null for a connection accepted while black-holed: it never reached the target. */
  target: Socket | null;
  /** Bytes of this connection were dropped, so the protocol on it cannot go on. */
  broken: boolean;
}

/**
 * A TCP proxy on loopback in front of PostgreSQL, Redis or an upstream, whose faults a test or
 * the fault suite switches. Going back to `pass` after `blackhole` closes the connections that lost bytes (a real
 * partition would end them by timeout or reset too) and keeps the idle ones.
 */
export class FaultProxy {
  private modeNow: ProxyMode = 'pass';
  private readonly pairs = new Set<Pair>();
  private server: Server | null = null;
  port = 0;
  /** The most connections open at once since `resetPeak()`. */
  peakOpen = 0;
  /** Connections still to end when the client sends what `cutAt` names, before it is passed on. */
  private cuts: { pattern: RegExp; left: number } | null = null;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  get mode(): ProxyMode {
    return this.modeNow;
  }

  get open(): number {
    return this.pairs.size;
  }

  resetPeak(): void {
    this.peakOpen = this.pairs.size;
  }

  /** A proxy, listening, in front of the host and port of `targetUrl`. */
  static async before(targetUrl: string): Promise<FaultProxy> {
    const target = new URL(targetUrl);
    return new FaultProxy(
      target.hostname,
      Number(target.port || DEFAULT_PORTS[target.protocol]),
    ).start();
  }

  async start(): Promise<this> {
    await this.listen();
    return this;
  }

  /** `url` with its host and port replaced by this proxy's. */
  proxied(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.port);
    return proxied.toString();
  }

  /**
   * The next `times` connections whose client sends bytes matching `pattern` end right there,
   * those bytes not passed on: a connection lost in the middle of a given exchange (what came
   * before it, a handshake say, went through).
   */
  cutAt(pattern: RegExp, times = 1): void {
    this.cuts = { pattern, left: times };
  }

  /** Ends every open connection now, as a restart or a failover does. */
  reset(): void {
    for (const pair of this.pairs) this.end(pair);
  }

  async setMode(mode: ProxyMode): Promise<void> {
    const previous = this.modeNow;
    if (mode === previous) return;
    this.modeNow = mode;
    if (mode === 'refuse') {
      await this.close();
      return;
    }
    if (previous === 'refuse') await this.listen();
    if (previous === 'blackhole')
      for (const pair of this.pairs) if (pair.broken || !pair.target) this.end(pair);
  }

  async close(): Promise<void> {
    // The server's close completes only once its connections are gone: end them after asking.
    const closed = this.unlisten();
    for (const pair of this.pairs) this.end(pair);
    await closed;
  }

  private listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      // The same port again after `refuse`, so the client's configured address stays valid.
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  private unlisten(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const pair: Pair = { client, target: null, broken: false };
    this.pairs.add(pair);
    this.peakOpen = Math.max(this.peakOpen, this.pairs.size);
    client.on('error', () => this.end(pair));
    client.on('close', () => this.end(pair));
    client.on('data', (chunk: Buffer) => {
      if (this.cutting(chunk)) this.end(pair);
      else this.forward(pair, chunk, pair.target, client);
    });
    if (this.modeNow === 'blackhole') return;
    const target = createConnection({ host: this.targetHost, port: this.targetPort });
    pair.target = target;
    target.on('error', () => this.end(pair));
    target.on('close', () => this.end(pair));
    target.on('data', (chunk: Buffer) => this.forward(pair, chunk, client, target));
  }

  private forward(pair: Pair, chunk: Buffer, to: Socket | null, from: Socket): void {
    if (this.modeNow === 'blackhole' || !to) {
      pair.broken = true;
      return;
    }
    if (!to.write(chunk)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  }

  private cutting(chunk: Buffer): boolean {
    if (!this.cuts || !this.cuts.pattern.test(chunk.toString('latin1'))) return false;
    if (--this.cuts.left === 0) this.cuts = null;
    return true;
  }

  private end(pair: Pair): void {
    if (!this.pairs.delete(pair)) return;
    pair.client.destroy();
    pair.target?.destroy();
  }
}
