import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * `pass` forwards; `refuse` closes every connection and refuses new ones, as a stopped server
 * does; `blackhole` holds connections open and forwards nothing either way, as a partition that
 * drops packets does (what was sent arrives once the partition ends, if the socket still lives).
 */
export type ProxyMode = 'pass' | 'refuse' | 'blackhole';

export interface SwitchableProxy {
  readonly port: number;
  /** The target URL with this proxy's address instead, e.g. `redis://127.0.0.1:<port>`. */
  readonly url: string;
  set(mode: ProxyMode): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

/** A TCP proxy on loopback in front of `targetUrl` (host and port are read from it). */
export async function startSwitchableProxy(targetUrl: string): Promise<SwitchableProxy> {
  const target = new URL(targetUrl);
  const targetPort = Number(target.port);
  const pairs = new Set<Pair>();
  let mode: ProxyMode = 'pass';

  const accept = (client: Socket) => {
    const upstream = createConnection({ host: target.hostname, port: targetPort });
    const pair = { client, upstream };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => client.write(chunk));
    if (mode === 'blackhole') hold(pair);
  };
  const hold = (pair: Pair) => {
    pair.client.pause();
    pair.upstream.pause();
  };
  const release = (pair: Pair) => {
    pair.client.resume();
    pair.upstream.resume();
  };

  let server: Server = createServer(accept);
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
    });
  const port = await listen(0);
  const proxied = new URL(targetUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  const url = proxied.toString();

  return {
    port,
    url,
    async set(next) {
      if (next === mode) return;
      const previous = mode;
      mode = next;
      if (next === 'refuse') {
        const stopped = stopListening();
        for (const pair of pairs) {
          pair.client.destroy();
          pair.upstream.destroy();
        }
        await stopped;
        return;
      }
      if (previous === 'refuse') {
        server = createServer(accept);
        await listen(port);
      }
      for (const pair of pairs) (next === 'blackhole' ? hold : release)(pair);
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      if (mode !== 'refuse') await stopListening();
    },
  };
}
