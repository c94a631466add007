import {
  type CallToolResult,
  type Implementation,
  type Result,
  type ServerCapabilities,
} from '@modelcontextprotocol/client';
import { type Dispatcher } from 'undici';
import { CallAbort } from '../../common/call-abort';
import { readBounded } from '../../common/remote-body';
import { withTraceHeaders } from '../../observability/request-context';
import { type BearerSource } from '../transport/channel';
import { type Admission } from '../resilience/concurrency-limiter';
import { type RequestOptions, type UpstreamConnection } from '../upstream-connection';
import {
  classifyUpstreamError,
  UpstreamFailure,
  UpstreamRpcError,
  UpstreamTimeout,
} from '../upstream-error';
import { tunedUpstream } from '../../config/settings/gateway-settings';
import { type ServerSettings } from '../../config/slices/server.settings';
import { type UpstreamSettings } from '../../config/slices/upstream.settings';
import { credentialHeaders } from '../upstream-credentials';
import { redactSecrets } from '../redact-secrets';
import { type UpstreamPools } from '../transport/upstream-pools.service';
import { type UpstreamTarget } from '../upstream-target';
import { type OpenApiDocuments } from './openapi-documents';
import { type OpenApiModel } from './openapi-model';
import { ArgumentError } from './parameter-style';
import { buildRequest, type BuiltRequest } from './request-builder';
import { errorResult, shapeResponse } from './response-shape';

export interface OpenApiConnectionOptions {
  baseUrl: URL;
  dispatcher: Dispatcher;
  /** The gateway's fixed credential headers; never logged. */
  headers: Record<string, string>;
  bearer?: BearerSource;
  admission?: Admission;
  timeoutMs: number;
  secrets: readonly string[];
  maxResponseBytes: number;
  maxDepth: number;
  /** The description's tools: `fresh` reads the description again (a sync), else the cached one. */
  model(fresh: boolean): Promise<OpenApiModel>;
}

/**
 * An OpenAPI service as an upstream: `tools/list` answers from the description's operations,
 * `tools/call` is one HTTP request. No session and nothing to listen to; everything above (sync,
 * virtual names, policies, pinning, audit) sees one more upstream.
 */
export class OpenApiConnection implements UpstreamConnection {
  readonly serverCapabilities: ServerCapabilities = { tools: {} };
  readonly protocolVersion = undefined;
  closed = false;
  readonly lost: Promise<UpstreamFailure>;
  private markLost!: (reason: UpstreamFailure) => void;

  private constructor(
    private readonly options: OpenApiConnectionOptions,
    private model: OpenApiModel,
  ) {
    this.lost = new Promise((resolve) => (this.markLost = resolve));
  }

  static async open(options: OpenApiConnectionOptions): Promise<OpenApiConnection> {
    return new OpenApiConnection(options, await options.model(false));
  }

  get serverInfo(): Implementation {
    return this.model.info;
  }

  async request<T extends Result = Result>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions = {},
  ): Promise<T> {
    if (this.closed) throw new UpstreamFailure('unreachable', 'the connection is closed');
    switch (method) {
      case 'ping':
        return {} as T;
      case 'tools/list':
        this.model = await this.options.model(true);
        return { tools: this.model.tools } as unknown as T;
      case 'tools/call':
        return (await this.call(params ?? {}, options)) as unknown as T;
      default:
        throw new UpstreamRpcError(-32601, `Method not found: ${method.slice(0, 100)}`);
    }
  }

  notify(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.markLost(new UpstreamFailure('cancelled', 'the connection was closed'));
    }
    return Promise.resolve();
  }

  private async call(
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<CallToolResult> {
    const name = params.name;
    const plan = typeof name === 'string' ? this.model.plans.get(name) : undefined;
    if (!plan) throw new UpstreamRpcError(-32602, `Unknown tool: ${String(name).slice(0, 128)}`);
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    let built: BuiltRequest;
    try {
      built = buildRequest(plan, this.options.baseUrl.pathname, args);
    } catch (error) {
      if (error instanceof ArgumentError) return errorResult(`Invalid arguments: ${error.message}`);
      throw error;
    }
    const pass = await this.options.admission?.enter(options.signal);
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    // The call's own signal, aborted by its timeout or its caller; AbortSignal.any would keep it
    // linked to the caller's signal past the call.
    const abort = new CallAbort();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    const onCallerAbort = () => abort.abort();
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (options.signal?.aborted) abort.abort();
    const { signal } = abort;
    try {
      const response = await this.send(built, signal);
      const { text, truncated } = await readBounded(response.body, this.options.maxResponseBytes);
      const failure =
        response.statusCode >= 500
          ? new UpstreamFailure('http', `HTTP ${response.statusCode}`, response.statusCode)
          : undefined;
      pass?.settle(failure);
      const result = shapeResponse(response, text, truncated, this.options.maxDepth);
      // An error's words are the upstream's and may echo the credential sent: cut out, as an MCP
      // upstream's are (UpstreamFailure.redacted).
      return result.isError ? redacted(result, this.options.secrets) : result;
    } catch (error) {
      const failure = options.signal?.aborted
        ? new UpstreamFailure('cancelled', 'the caller gave up')
        : signal.aborted
          ? new UpstreamTimeout(timeoutMs)
          : classifyUpstreamError(error, timeoutMs, this.options.secrets);
      pass?.settle(failure);
      throw failure;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** With OAuth, a 401 is the token going bad early: it is refreshed once and sent again. */
  private async send(built: BuiltRequest, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    const { bearer } = this.options;
    if (!bearer) return this.sendOnce(built, signal);
    const token = await bearer.token();
    const response = await this.sendOnce(built, signal, token);
    if (response.statusCode !== 401) return response;
    await response.body.dump();
    return this.sendOnce(built, signal, await bearer.token(token));
  }

  private sendOnce(
    built: BuiltRequest,
    signal: AbortSignal,
    token?: string,
  ): Promise<Dispatcher.ResponseData> {
    const { baseUrl, dispatcher, headers } = this.options;
    // The built headers' names are in lower case; a credential's may not be. The credential wins.
    const given = { ...built.headers };
    for (const name of Object.keys(headers)) delete given[name.toLowerCase()];
    return dispatcher.request({
      origin: baseUrl.origin,
      path: built.path,
      method: built.method,
      headers: withTraceHeaders({
        accept: 'application/json, */*;q=0.8',
        ...given,
        ...headers,
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      }),
      body: built.body,
      signal,
    });
  }
}

function redacted(result: CallToolResult, secrets: readonly string[]): CallToolResult {
  return {
    ...result,
    content: result.content.map((block) =>
      block.type === 'text' ? { ...block, text: redactSecrets(block.text, secrets) } : block,
    ),
  };
}

/** What opening an OpenAPI gateway's connection needs of the connector. */
export interface OpenApiOpening {
  admission: Admission;
  secrets: readonly string[];
  bearer: BearerSource | undefined;
}

/** What every OpenAPI connection of the connector shares. */
export interface OpenApiHost {
  documents: OpenApiDocuments;
  server: ServerSettings;
  upstream: UpstreamSettings;
  pools: UpstreamPools;
}

/** The connection of an `openapi` gateway: its base URL's pool, its credentials, its description. */
export function openOpenApi(
  target: UpstreamTarget,
  opening: OpenApiOpening,
  { documents, server, upstream, pools }: OpenApiHost,
): Promise<OpenApiConnection> {
  const { gatewayId, endpoint } = target;
  if (endpoint.url === null || !endpoint.openapi)
    throw new UpstreamFailure('unreachable', 'the OpenAPI gateway has no base URL or description');
  const baseUrl = new URL(endpoint.url);
  const headers = credentialHeaders(endpoint.credentials);
  const source = endpoint.openapi;
  const timeoutMs = tunedUpstream(upstream, target.settings).timeoutMs;
  const maxDepth = server.jsonMaxDepth;
  const fetch = {
    dispatcher: (url: URL) => pools.for(gatewayId, url).requests,
    headers,
    baseUrl,
    timeoutMs,
  };
  return OpenApiConnection.open({
    baseUrl,
    dispatcher: pools.for(gatewayId, baseUrl).requests,
    headers,
    bearer: opening.bearer,
    admission: opening.admission,
    timeoutMs,
    secrets: opening.secrets,
    maxResponseBytes: upstream.upstreamMessageLimitBytes,
    maxDepth,
    model: (fresh) => documents.model(gatewayId, source, fresh, fetch, maxDepth),
  });
}
