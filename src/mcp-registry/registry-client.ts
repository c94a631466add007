import { request } from 'undici';
import { isJsonObject, textNestsDeeper } from '../common/json-value';
import { readChunks } from '../common/read-body';
import { utf8Text } from '../common/untrusted-text';
import { checkServerResponse, ServerJsonProblem, type ServerResponse } from './server-json';

/** How much one registry may cost Portico: every answer and every walk is bounded. */
export interface RegistryLimits {
  /**
   * The most bytes read from the registry for one search, show or import, all its answers
   * together; an answer that passes the mark is refused as its bytes pass it.
   */
  maxBytes: number;
  /** Entries asked for per page (the registry's `limit`), and the most accepted in one page. */
  pageSize: number;
  /** Pages followed in one walk (search across pages). */
  maxPages: number;
  /** For one request: connecting, the headers and the whole body. */
  timeoutMs: number;
}

export interface ListQuery {
  search?: string;
  cursor?: string;
  limit?: number;
  updatedSince?: string;
  version?: string;
}

export interface ServerPage {
  servers: ServerResponse[];
  nextCursor: string | null;
}

/** Why a registry could not be read, in words for the operator; never a crash. */
/**
 * How deeply an answer may nest: a server.json nests about six levels, its `_meta` somewhat more;
 * anything deeper is refused before it is parsed, as every walk and copy of it would recurse.
 */
export const REGISTRY_MAX_DEPTH = 64;

export class RegistryFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryFetchError';
  }
}

/**
 * A client of the MCP Registry's v0.1 read API, for one search, show or import. Each request is
 * one GET with no redirect followed, within `timeoutMs`, read as a stream and cut off once the
 * client's answers together pass `maxBytes`, refused past REGISTRY_MAX_DEPTH, parsed as JSON and
 * shape-checked before anything is built from it.
 */
export class McpRegistryClient {
  /** Bytes read so far, by every request of this client. */
  private received = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly limits: RegistryLimits,
  ) {}

  /** One page of `GET /v0.1/servers`. */
  async list(query: ListQuery = {}): Promise<ServerPage> {
    const url = this.url('v0.1/servers');
    const limit = Math.min(query.limit ?? this.limits.pageSize, this.limits.pageSize);
    url.searchParams.set('limit', String(limit));
    if (query.search) url.searchParams.set('search', query.search);
    if (query.cursor) url.searchParams.set('cursor', query.cursor);
    if (query.updatedSince) url.searchParams.set('updated_since', query.updatedSince);
    if (query.version) url.searchParams.set('version', query.version);
    const body = await this.getJson(url);
    if (!isJsonObject(body) || !Array.isArray(body.servers))
      throw this.problem(url, 'answered JSON without a servers array');
    const servers = body.servers as unknown[];
    if (servers.length > Math.max(limit, 1))
      throw this.problem(url, `answered ${servers.length} entries for a page of ${limit}`);
    const next = isJsonObject(body.metadata) ? body.metadata.nextCursor : undefined;
    if (next !== undefined && next !== null && (typeof next !== 'string' || next.length > 1024))
      throw this.problem(
        url,
        'answered a nextCursor that is not a string of at most 1024 characters',
      );
    return {
      servers: servers.map((entry, index) => this.checked(url, entry, `servers[${index}]`)),
      nextCursor: typeof next === 'string' && next !== '' ? next : null,
    };
  }

  /**
   * Pages of `GET /v0.1/servers` from the first, until `enough` entries or the last page, within
   * `maxPages`; whole pages, so that the next cursor misses nothing. A cursor seen before (a loop, or a registry that repeats itself) stops the walk
   * with an error rather than going round again.
   */
  async walk(query: Omit<ListQuery, 'cursor'>, enough: number): Promise<ServerPage> {
    const seen = new Set<string>();
    const servers: ServerResponse[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < this.limits.maxPages; page++) {
      const answer = await this.list({ ...query, ...(cursor ? { cursor } : {}) });
      servers.push(...answer.servers);
      if (answer.nextCursor === null || servers.length >= enough)
        return { servers, nextCursor: answer.nextCursor };
      if (seen.has(answer.nextCursor))
        throw new RegistryFetchError(
          `The registry ${this.baseUrl} repeated the cursor '${answer.nextCursor.slice(0, 64)}': its pages loop, so the walk stopped.`,
        );
      seen.add(answer.nextCursor);
      cursor = answer.nextCursor;
    }
    throw new RegistryFetchError(
      `The registry ${this.baseUrl} has more than ${this.limits.maxPages} pages for this query; narrow it with search.`,
    );
  }

  /** `GET /v0.1/servers/{name}/versions/{version|latest}`; null when the registry has none. */
  async version(name: string, version = 'latest'): Promise<ServerResponse | null> {
    const url = this.url(
      `v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`,
    );
    const body = await this.getJson(url, true);
    if (body === NOT_FOUND) return null;
    const entry = this.checked(url, body, 'answer');
    if (entry.server.name !== name)
      throw this.problem(url, `answered the entry of '${entry.server.name}', not '${name}'`);
    if (version !== 'latest' && entry.server.version !== version)
      throw this.problem(
        url,
        `answered version '${entry.server.version}' of '${name}', not '${version}'`,
      );
    return entry;
  }

  /** Each version the registry has of a server (`GET /v0.1/servers/{name}/versions`). */
  async versions(name: string): Promise<ServerResponse[] | null> {
    const url = this.url(`v0.1/servers/${encodeURIComponent(name)}/versions`);
    const body = await this.getJson(url, true);
    if (body === NOT_FOUND) return null;
    if (!isJsonObject(body) || !Array.isArray(body.servers))
      throw this.problem(url, 'answered JSON without a servers array');
    const servers = body.servers as unknown[];
    if (servers.length > this.limits.pageSize * this.limits.maxPages)
      throw this.problem(url, `answered ${servers.length} versions, more than Portico reads`);
    return servers.map((entry, index) => this.checked(url, entry, `servers[${index}]`));
  }

  private url(path: string): URL {
    const base = this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`;
    return new URL(path, base);
  }

  private checked(url: URL, entry: unknown, path: string): ServerResponse {
    try {
      return checkServerResponse(entry, path);
    } catch (error) {
      if (error instanceof ServerJsonProblem)
        throw this.problem(
          url,
          `answered an entry that is not a valid server.json: ${error.message}`,
        );
      throw error;
    }
  }

  private async getJson(url: URL, notFoundIsNull = false): Promise<unknown> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.limits.timeoutMs);
    try {
      const response = await request(url, {
        method: 'GET',
        headers: { accept: 'application/json' },
        signal: controller.signal,
        headersTimeout: this.limits.timeoutMs,
        bodyTimeout: this.limits.timeoutMs,
      });
      if (notFoundIsNull && response.statusCode === 404) {
        await response.body.dump();
        return NOT_FOUND;
      }
      if (response.statusCode !== 200) {
        await response.body.dump();
        const redirect = response.statusCode >= 300 && response.statusCode < 400;
        throw this.problem(
          url,
          redirect
            ? `answered ${response.statusCode}, a redirect, which Portico does not follow`
            : `answered ${response.statusCode}, not 200`,
        );
      }
      const declared = Number(response.headers['content-length']);
      if (this.received + declared > this.limits.maxBytes) {
        response.body.destroy();
        throw this.tooLarge(url);
      }
      const chunks: Buffer[] = [];
      const cut = await readChunks(response.body, (chunk) => {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        this.received += bytes.length;
        if (this.received > this.limits.maxBytes) return true;
        chunks.push(bytes);
      });
      if (cut) {
        response.body.destroy();
        throw this.tooLarge(url);
      }
      let text: string;
      try {
        text = utf8Text(Buffer.concat(chunks));
      } catch {
        throw this.problem(url, 'answered bytes that are not UTF-8 text');
      }
      if (textNestsDeeper(text, REGISTRY_MAX_DEPTH))
        throw this.problem(url, `answered JSON nested more than ${REGISTRY_MAX_DEPTH} levels deep`);
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw this.problem(
          url,
          `answered invalid JSON (${(error as Error).message.slice(0, 200)})`,
        );
      }
    } catch (error) {
      if (error instanceof RegistryFetchError) throw error;
      if (controller.signal.aborted)
        throw this.problem(url, `did not answer within ${this.limits.timeoutMs} ms`);
      const code = (error as NodeJS.ErrnoException).code;
      throw this.problem(url, `could not be reached (${code ?? (error as Error).message})`);
    } finally {
      clearTimeout(timer);
    }
  }

  private tooLarge(url: URL): RegistryFetchError {
    return this.problem(
      url,
      `answered more than ${this.limits.maxBytes} bytes (this request's answers together), which Portico does not read`,
    );
  }

  private problem(url: URL, message: string): RegistryFetchError {
    return new RegistryFetchError(`The registry at ${url.origin}${url.pathname} ${message}.`);
  }
}

const NOT_FOUND = Symbol('not found');
