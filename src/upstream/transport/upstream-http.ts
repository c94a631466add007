import {
  extractWWWAuthenticateParams,
  type JSONRPCMessage,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/client';
import { type Dispatcher } from 'undici';
import { withTraceHeaders } from '../../observability/spans';
import { type MessageLimits } from './message-bounds';
import { readJsonBody } from './sse-reader';
import { UpstreamFailure } from '../upstream-error';
import { type UpstreamDispatchers } from './upstream-pools.service';

const ERROR_BODY_LIMIT = 2048;

export interface UpstreamHttpOptions {
  url: URL;
  dispatchers: UpstreamDispatchers;
  /** Credentials: sent with every request, never logged. */
  headers: Record<string, string>;
  /** An OAuth upstream: the bearer token is asked for per request, since it is refreshed. */
  bearer?: BearerSource;
  /** How large and deep each message the upstream sends may be. */
  limits: MessageLimits;
  /**
   * A 2026-07-28 upstream: no session, this version on every request, and a 4xx that carries a
   * JSON-RPC error (-32022, -32601, -32020...) is that error, the upstream's own answer.
   */
  modernVersion?: string;
}

/** The current access token; `stale` is one the upstream refused, never to be handed out again. */
export interface BearerSource {
  token(stale?: string): Promise<string>;
  /**
   * The upstream refused the token as too narrow (403 `insufficient_scope`, RFC 6750), asking
   * for `scope`: what to throw, since only a new authorization can grant more.
   */
  tooNarrow(scope: string | undefined): Promise<UpstreamFailure>;
}

export interface RequestExtras {
  signal?: AbortSignal;
  /** A request answered only when it ends (a listen): kept off the pool that calls use. */
  longLived?: boolean;
  lastEventId?: string;
  headers?: Record<string, string>;
}

/**
 * The HTTP requests of one Streamable HTTP upstream: each carries the credentials, the session and
 * the protocol version, and a status that is a failure becomes an UpstreamFailure (or, from a
 * 2026-07-28 upstream, the JSON-RPC error it carries). This is the tools/call hot path: undici's
 * pooled keep-alive connections instead of fetch and web streams.
 */
export class UpstreamHttp {
  sessionId: string | undefined;
  protocolVersion: string | undefined;

  constructor(private readonly options: UpstreamHttpOptions) {
    this.protocolVersion = options.modernVersion;
  }

  /**
   * Sends one HTTP request; streams (GETs and long-lived POSTs) go through their own pool. With
   * OAuth, a 401 means the token went bad before its time (revoked, or the upstream's clock): it
   * is refreshed once and the request sent again. A 403 that asks for more scope needs a new
   * authorization.
   */
  async dispatch(
    method: 'POST' | 'GET' | 'DELETE',
    message: JSONRPCMessage | null,
    options: RequestExtras = {},
  ): Promise<Dispatcher.ResponseData> {
    const { bearer, dispatchers } = this.options;
    const dispatcher =
      method === 'GET' || options.longLived ? dispatchers.streams : dispatchers.requests;
    const send = (token?: string) => this.sendOnce(method, message, dispatcher, options, token);
    if (!bearer) return send();
    const token = await bearer.token();
    let response = await send(token);
    if (response.statusCode === 401) {
      await response.body.dump();
      response = await send(await bearer.token(token));
    }
    const wanted = response.statusCode === 403 ? insufficientScope(response) : null;
    if (!wanted) return response;
    await response.body.dump();
    throw await bearer.tooNarrow(wanted.scope);
  }

  /**
   * Throws the failure an HTTP status says, if any. A 2026-07-28 upstream answers a request `id`
   * it refuses (a version it does not serve, an unknown method, a header mismatch) with a 4xx
   * whose body is the JSON-RPC error: that error is its answer, and returned. Auth refusals and
   * bodies that are no such error stay HTTP failures.
   */
  async refusal(
    response: Dispatcher.ResponseData,
    id?: RequestId,
  ): Promise<JSONRPCResponse | null> {
    const { statusCode } = response;
    if (statusCode < 400) return null;
    let text: string;
    if (id !== undefined && this.carriesRpcError(response)) {
      const body = await readJsonBody(response.body, this.options.limits);
      if (body instanceof UpstreamFailure) text = body.message;
      else if ('error' in body && (body.id === id || body.id === null || body.id === undefined))
        return { ...body, id };
      else text = JSON.stringify(body);
    } else text = await response.body.text().catch(() => '');
    if (statusCode === 404 && this.sessionId !== undefined)
      throw new UpstreamFailure('session-expired', 'the upstream no longer knows the session', 404);
    throw new UpstreamFailure(
      'http',
      `HTTP ${statusCode}: ${text.slice(0, ERROR_BODY_LIMIT)}`,
      statusCode,
    );
  }

  private carriesRpcError({ statusCode, headers }: Dispatcher.ResponseData): boolean {
    return (
      this.options.modernVersion !== undefined &&
      statusCode < 500 &&
      statusCode !== 401 &&
      statusCode !== 403 &&
      String(headers['content-type'] ?? '').includes('application/json')
    );
  }

  private sendOnce(
    method: 'POST' | 'GET' | 'DELETE',
    message: JSONRPCMessage | null,
    dispatcher: Dispatcher,
    options: RequestExtras,
    token: string | undefined,
  ): Promise<Dispatcher.ResponseData> {
    const { url, headers } = this.options;
    return dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method,
      headers: withTraceHeaders({
        ...options.headers,
        ...headers,
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(this.sessionId === undefined ? {} : { 'mcp-session-id': this.sessionId }),
        ...(this.protocolVersion === undefined
          ? {}
          : { 'mcp-protocol-version': this.protocolVersion }),
        ...(options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId }),
        ...(message === null
          ? { accept: 'text/event-stream' }
          : { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }),
      }),
      body: message === null ? null : JSON.stringify(message),
      signal: options.signal,
    });
  }
}

/** A challenge with `error="insufficient_scope"`, and the scope it asks for. */
function insufficientScope(response: Dispatcher.ResponseData): { scope?: string } | null {
  const header = response.headers['www-authenticate'];
  const challenge = Array.isArray(header) ? header.join(', ') : header;
  if (!challenge) return null;
  // Read as the SDK's auth() reads challenges, so that both agree on what was asked.
  const { error, scope } = extractWWWAuthenticateParams(
    new Response(null, { headers: { 'www-authenticate': challenge } }),
  );
  if (error !== 'insufficient_scope') return null;
  return scope === undefined ? {} : { scope };
}

export function isEventStream(response: Dispatcher.ResponseData): boolean {
  return String(response.headers['content-type'] ?? '').includes('text/event-stream');
}
