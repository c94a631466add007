import { isIPv6 } from 'node:net';
import { CliError } from './cli-error';

/** How long a request may take before the CLI gives up on it, unless its command says. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Where this host's Portico listens: HOST (loopback when it listens on every interface) and PORT.
 */
function localUrl(env: NodeJS.ProcessEnv): string {
  const host = env.HOST?.trim().replace(/^\[(.*)\]$/, '$1') ?? '';
  const address = ['', '0.0.0.0', '::'].includes(host) ? '127.0.0.1' : host;
  return `http://${isIPv6(address) ? `[${address}]` : address}:${env.PORT?.trim() || 3000}`;
}

/** Where a running Portico is: `--url`, else PORTICO_URL, else this host's HOST and PORT. */
export function porticoUrl(url: string | undefined, env: NodeJS.ProcessEnv): string {
  const raw = url ?? env.PORTICO_URL ?? localUrl(env);
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new CliError(`Not a URL: '${raw}' (give --url or PORTICO_URL as http(s)://host[:port])`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new CliError(`Not an http(s) URL: '${raw}'`);
  return parsed.origin + parsed.pathname.replace(/\/+$/, '');
}

interface ProblemBody {
  title?: string;
  detail?: string;
}

/**
 * The REST API of a running Portico, for commands that drive one. It signs in once, lazily, with
 * PORTICO_TOKEN, or by exchanging PORTICO_USERNAME and PORTICO_PASSWORD for a token.
 */
export class PorticoClient {
  private token: Promise<string> | null = null;

  constructor(
    readonly baseUrl: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  static from(url: string | undefined, env: NodeJS.ProcessEnv): PorticoClient {
    return new PorticoClient(porticoUrl(url, env), env);
  }

  /**
   * A JSON request with the bearer token; a problem+json answer becomes a CliError, and so does
   * no whole answer within `timeoutMs`.
   */
  async request<T>(
    method: string,
    path: string,
    body?: unknown,
    timeoutMs = REQUEST_TIMEOUT_MS,
  ): Promise<T> {
    return JSON.parse((await this.send(method, path, body, timeoutMs)).toString('utf8')) as T;
  }

  /** A GET whose answer is a file, downloaded within `timeoutMs`. */
  download(path: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Buffer> {
    return this.send('GET', path, undefined, timeoutMs);
  }

  private async send(
    method: string,
    path: string,
    body: unknown,
    timeoutMs: number,
  ): Promise<Buffer> {
    const headers: Record<string, string> = { authorization: `Bearer ${await this.signIn()}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return this.exchange(
      path,
      { method, headers, body: body === undefined ? undefined : JSON.stringify(body) },
      timeoutMs,
    );
  }

  private signIn(): Promise<string> {
    this.token ??= this.obtainToken();
    return this.token;
  }

  private async obtainToken(): Promise<string> {
    const token = this.env.PORTICO_TOKEN?.trim();
    if (token) return token;
    const username = this.env.PORTICO_USERNAME?.trim();
    const password = this.env.PORTICO_PASSWORD;
    if (!username || !password) {
      throw new CliError(
        'Sign-in needed: set PORTICO_TOKEN, or PORTICO_USERNAME and PORTICO_PASSWORD.',
      );
    }
    const answer = await this.exchange(
      '/api/v1/auth/token',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      },
      REQUEST_TIMEOUT_MS,
    );
    return (JSON.parse(answer.toString('utf8')) as { accessToken: string }).accessToken;
  }

  /**
   * One request and its whole body, within `timeoutMs`; a failure status is the server's problem.
   * A request that gets no whole answer in time may still be under way: one that changes
   * something is said to have perhaps done so, so that no one takes it for undone.
   */
  private async exchange(path: string, init: RequestInit, timeoutMs: number): Promise<Buffer> {
    const method = init.method ?? 'GET';
    try {
      const response = await fetch(`${this.baseUrl}${path}`, {
        ...init,
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) throw await problem(method, path, response);
      return Buffer.from(await response.arrayBuffer());
    } catch (error) {
      if (error instanceof CliError) throw error;
      // By name: the timeout is a DOMException, of another realm than this module's at times.
      if ((error as { name?: unknown } | null)?.name === 'TimeoutError') {
        const changes =
          method === 'GET' ? '' : `; the ${method} may have taken effect all the same`;
        throw new CliError(
          `No answer from Portico at ${this.baseUrl} to ${method} ${path.split('?')[0]} within ${timeoutMs / 1000} s${changes}`,
        );
      }
      throw new CliError(`Cannot reach Portico at ${this.baseUrl}: ${reason(error)}`);
    }
  }
}

async function problem(method: string, path: string, response: Response): Promise<CliError> {
  let detail = '';
  try {
    const body = (await response.json()) as ProblemBody;
    detail = body.detail ?? body.title ?? '';
  } catch {
    // Not JSON (a proxy's error page, say): the status line says enough.
  }
  const status = `${response.status} ${response.statusText}`.trim();
  return new CliError(`${method} ${path}: ${status}${detail ? ` — ${detail}` : ''}`);
}

/** The useful part of a fetch failure: undici hides the socket error in `cause`. */
export function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) return (cause as NodeJS.ErrnoException).code ?? cause.message;
  return error.name === 'TimeoutError' ? 'no answer in time' : error.message;
}
