import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { UPSTREAM_OAUTH_CALLBACK_PATH } from '../upstream/oauth/oauth-exchange';
import { CliError } from './cli-error';

interface Awaited {
  state: string;
  resolve(query: URLSearchParams): void;
}

/**
 * The redirect URI of an authorization made from the command line (RFC 8252 §7.3): a listener on
 * the loopback interface that takes the provider's one return, at the path Portico's own
 * callback has. Any other request, or a return with another state, is refused.
 */
export class LoopbackCallback {
  private awaited: Awaited | null = null;

  private constructor(private readonly server: Server) {}

  static async start(port: number): Promise<LoopbackCallback> {
    const callback: LoopbackCallback = new LoopbackCallback(
      createServer((request, response) => {
        const url = new URL(request.url ?? '/', 'http://127.0.0.1');
        const awaited = callback.awaited;
        const matches =
          request.method === 'GET' &&
          url.pathname === UPSTREAM_OAUTH_CALLBACK_PATH &&
          awaited !== null &&
          url.searchParams.get('state') === awaited.state;
        response.writeHead(matches ? 200 : 400, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(
          matches
            ? 'Portico received the authorization. You may close this window.\n'
            : 'No authorization of this command is waiting for this answer.\n',
        );
        if (matches) {
          callback.awaited = null;
          awaited.resolve(url.searchParams);
        }
      }),
    );
    await new Promise<void>((resolve, reject) => {
      callback.server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new CliError(`Cannot listen on 127.0.0.1:${port} for the OAuth return: ${error.message}`),
        ),
      );
      callback.server.listen(port, '127.0.0.1', resolve);
    });
    return callback;
  }

  /** Where the provider sends the browser back to (the origin Portico's callback path is under). */
  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The query of the provider's return for `state`, within `timeoutMs`. */
  expect(state: string, timeoutMs: number): Promise<URLSearchParams> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.awaited = null;
        reject(new CliError(`No authorization came back within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.awaited = {
        state,
        resolve: (query) => {
          clearTimeout(timer);
          resolve(query);
        },
      };
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
