import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** What the proxy does with connections: forward them, refuse them, or drop every byte. */
export type ProxyMode = 'forward' | 'refuse' | 'black-hole';

/**
 * A TCP proxy on loopback between Portico and PostgreSQL that a test switches to fail as networks
 * and servers do:
 * - `refuse`: nothing listens (ECONNREFUSED), and open connections are reset, as when the server
 *   is down;
 * - `black-hole`: connections are accepted and kept, and every byte either way is dropped, as in
 *   a partition;
 * - `reset()`: every open connection is reset now, as a restart or a failover does.
 * Going back to `forward` resets what the black hole held (its streams lost bytes).
 */
export class TcpProxy {
  private mode: ProxyMode = 'forward';
  private readonly pairs = new Set<{ client: Socket; server: Socket | null }>();
  private server: Server | null = null;

  private constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const port = await new Promise<number>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const proxy = new TcpProxy(target, port);
    await proxy.listen();
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  proxied(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.port);
    return proxied.toString();
  }

  async set(mode: ProxyMode): Promise<void> {
    const previous = this.mode;
    this.mode = mode;
    if (mode === 'refuse') {
      this.reset();
      await this.unlisten();
    } else if (previous === 'refuse') {
      await this.listen();
    }
    if (previous === 'black-hole' && mode === 'forward') this.reset();
  }

  reset(): void {
    for (const pair of this.pairs) {
      pair.client.resetAndDestroy();
      pair.server?.destroy();
    }
    this.pairs.clear();
  }

  async close(): Promise<void> {
    this.reset();
    await this.unlisten();
  }

  private accept(client: Socket): void {
    const pair: { client: Socket; server: Socket | null } = { client, server: null };
    this.pairs.add(pair);
    const forget = () => {
      this.pairs.delete(pair);
      client.destroy();
      pair.server?.destroy();
    };
    client.on('error', forget);
    client.on('close', forget);
    if (this.mode === 'black-hole') return;
    const server = createConnection(this.target);
    pair.server = server;
    server.on('error', forget);
    server.on('close', forget);
    client.on('data', (chunk) => {
      if (this.mode === 'forward') server.write(chunk);
    });
    server.on('data', (chunk) => {
      if (this.mode === 'forward') client.write(chunk);
    });
  }

  private listen(): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
  }

  private unlisten(): Promise<void> {
    const server = this.server;
    this.server = null;
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}
