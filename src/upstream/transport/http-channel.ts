import { setTimeout as delay } from 'node:timers/promises';
import {
  extractWWWAuthenticateParams,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/client';
import { type Dispatcher } from 'undici';
import { inSpan, SpanKind, withTraceHeaders } from '../../observability/spans';
import { type Channel, type ChannelListener, type ChannelRequestOptions } from './channel';
import { type MessageLimits, isJsonRpcResponse } from './message-bounds';
import { readEventStream, readJsonBody, type StreamPosition } from './sse-reader';
import { UpstreamFailure } from '../upstream-error';
import { type UpstreamDispatchers } from './upstream-pools.service';

const ERROR_BODY_LIMIT = 2048;
/** When an upstream closes a stream without saying when to come back. */
const DEFAULT_RETRY_MS = 1000;
/** Longest wait an upstream's `retry` may ask for before a stream is resumed. */
const MAX_RETRY_MS = 30_000;
/** Resumptions of one stream in a row that bring nothing new before it is given up. */
const MAX_FRUITLESS_RESUMES = 3;
const CLOSE_TIMEOUT_MS = 1000;
/** Failed attempts in a row to reopen a session's stream before the upstream counts as gone. */
const MAX_STREAM_FAILURES = 2;
/** First wait before reopening a session's stream that failed; doubled after each failure. */
const STREAM_RETRY_MS = 500;
/** Longest wait for an upstream to take the session's stream before calls go ahead anyway. */
const STREAM_OPEN_WAIT_MS = 2000;

export interface HttpChannelOptions {
  url: URL;
  /** Credentials: sent with every request, never logged. */
  headers: Record<string, string>;
  dispatchers: UpstreamDispatchers;
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

/**
 * A Streamable HTTP upstream session. This is the tools/call hot path: undici's pooled keep-alive
 * connections instead of fetch and web streams. A request's stream that the upstream closes before
 * answering (SEP-1699 polling, or a dropped connection after an event id) is resumed with GET and
 * `Last-Event-ID`; so is the session's own GET stream.
 */
export class HttpChannel implements Channel {
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private listener: ChannelListener | null = null;
  private readonly closing = new AbortController();

  constructor(private readonly options: HttpChannelOptions) {
    this.protocolVersion = options.modernVersion;
  }

  start(listener: ChannelListener): Promise<void> {
    this.listener = listener;
    return Promise.resolve();
  }

  established(protocolVersion: string): void {
    this.protocolVersion = protocolVersion;
  }

  /**
   * Opens the session's own stream, and waits until the upstream has taken it (or refused it):
   * a request the upstream makes of the client outside any call's stream, as soon as the first
   * call starts, goes nowhere when this stream is not yet there.
   */
  listen(): Promise<void> {
    if (this.sessionId === undefined) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, STREAM_OPEN_WAIT_MS);
      void this.keepStream(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** One request to the upstream, in a client span whose context its `traceparent` carries. */
  request(message: JSONRPCRequest, options: ChannelRequestOptions): Promise<JSONRPCResponse> {
    return inSpan(
      `upstream ${message.method}`,
      {
        'rpc.system': 'jsonrpc',
        'rpc.method': message.method,
        'server.address': this.options.url.hostname,
        'url.full': this.options.url.origin + this.options.url.pathname,
      },
      () => this.exchange(message, options),
      SpanKind.CLIENT,
    );
  }

  private async exchange(
    message: JSONRPCRequest,
    options: ChannelRequestOptions,
  ): Promise<JSONRPCResponse> {
    const { dispatchers } = this.options;
    const response = await this.dispatch(
      'POST',
      message,
      options.longLived ? dispatchers.streams : dispatchers.requests,
      { signal: options.signal, headers: options.headers },
    );
    if (message.method === 'initialize') {
      const sessionId = response.headers['mcp-session-id'];
      if (typeof sessionId === 'string' && sessionId !== '') this.sessionId = sessionId;
    }
    const refusal = await this.modernRefusal(response, message.id);
    if (refusal) return refusal;
    await this.refuseFailure(response);
    if (!isEventStream(response)) {
      const answer = await readJsonBody(response.body, this.options.limits);
      if (answer instanceof UpstreamFailure) throw answer;
      if (!isJsonRpcResponse(answer) || answer.id !== message.id)
        throw new UpstreamFailure(
          'protocol',
          'the upstream answered with something other than the response',
        );
      return answer;
    }
    return this.readAnswer(response, message.id, options);
  }

  async send(message: JSONRPCNotification | JSONRPCResponse): Promise<void> {
    const response = await this.dispatch('POST', message, this.options.dispatchers.requests);
    await this.refuseFailure(response);
    await response.body.dump();
  }

  async close(): Promise<void> {
    this.closing.abort();
    if (this.sessionId === undefined) return;
    // Ends the session upstream; an upstream that cannot be reached now has nothing to end.
    const response = await this.dispatch('DELETE', null, this.options.dispatchers.requests, {
      signal: AbortSignal.timeout(CLOSE_TIMEOUT_MS),
    }).catch(() => null);
    await response?.body.dump().catch(() => undefined);
  }

  /**
   * Reads a request's event stream to the answer, resuming it while the upstream closes it early.
   * Each resumption that brings events counts as progress; only fruitless ones in a row give up.
   */
  private async readAnswer(
    response: Dispatcher.ResponseData,
    id: RequestId,
    options: ChannelRequestOptions,
  ): Promise<JSONRPCResponse> {
    let answer: JSONRPCResponse | null = null;
    const onEvent = (incoming: JSONRPCMessage): boolean => {
      if (isJsonRpcResponse(incoming) && incoming.id === id) {
        answer = incoming;
        return true;
      }
      if (!isJsonRpcResponse(incoming)) options.onMessage(incoming);
      return false;
    };
    let position: StreamPosition = {};
    let fruitless = 0;
    for (let current = response; ;) {
      const before = position.lastEventId;
      try {
        position = await readEventStream(current.body, onEvent, this.options.limits, position);
      } catch (error) {
        current.body.destroy();
        if (options.signal.aborted || error instanceof UpstreamFailure) throw error;
        // A dropped connection resumes like an early close, from the last event id seen.
      }
      if (answer) {
        // The upstream ends the stream after the answer; reading it to its end keeps the
        // connection for the pool (destroying it would cost an error object and a connection).
        void current.body.dump().catch(() => undefined);
        return answer;
      }
      if (position.lastEventId === undefined)
        throw new UpstreamFailure(
          'unreachable',
          'the upstream closed the stream without answering',
        );
      fruitless = position.lastEventId === before ? fruitless + 1 : 0;
      if (fruitless >= MAX_FRUITLESS_RESUMES)
        throw new UpstreamFailure(
          'unreachable',
          'the upstream closed the stream again and again without answering',
        );
      await delay(retryDelay(position), undefined, { signal: options.signal });
      current = await this.resume(position.lastEventId, options.signal);
    }
  }

  /** GET with `Last-Event-ID`: the rest of a stream the upstream closed. */
  private async resume(lastEventId: string, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    const response = await this.dispatch('GET', null, this.options.dispatchers.streams, {
      signal,
      lastEventId,
    });
    await this.refuseFailure(response);
    if (!isEventStream(response)) {
      await response.body.dump();
      throw new UpstreamFailure(
        'protocol',
        'the upstream resumed a stream with something other than an event stream',
      );
    }
    return response;
  }

  /**
   * The session's own GET stream, for messages outside requests: kept open until the channel
   * closes. A stream the upstream ends is resumed from its last event id after the `retry` it
   * asked for; one that cannot be reopened a few times in a row means the upstream is gone. An
   * upstream that offers none (405) has nothing to say outside requests.
   */
  private async keepStream(opened: () => void): Promise<void> {
    const signal = this.closing.signal;
    let position: StreamPosition = {};
    let failures = 0;
    while (!signal.aborted) {
      let wait: number;
      try {
        const response = await this.dispatch('GET', null, this.options.dispatchers.streams, {
          signal,
          lastEventId: position.lastEventId,
        }).finally(opened);
        if (response.statusCode === 405) {
          await response.body.dump();
          return;
        }
        await this.refuseFailure(response);
        failures = 0;
        position = await readEventStream(
          response.body,
          (message) => {
            if (!isJsonRpcResponse(message)) this.listener?.message(message);
            return false;
          },
          this.options.limits,
          position,
        );
        wait = retryDelay(position);
      } catch (error) {
        if (signal.aborted) return;
        const expired = error instanceof UpstreamFailure && error.kind === 'session-expired';
        if (expired || ++failures > MAX_STREAM_FAILURES) {
          this.listener?.lost(
            error instanceof UpstreamFailure
              ? error
              : new UpstreamFailure(
                  'unreachable',
                  `the upstream's event stream broke: ${String(error)}`,
                ),
          );
          return;
        }
        wait = STREAM_RETRY_MS * 2 ** (failures - 1);
      }
      await delay(wait, undefined, { signal }).catch(() => undefined);
    }
  }

  /**
   * A modern upstream answers a request it refuses (a version it does not serve, an unknown
   * method, a header mismatch) with a 4xx whose body is the JSON-RPC error: that error is its
   * answer. Auth refusals and bodies that are no such error stay HTTP failures.
   */
  private async modernRefusal(
    response: Dispatcher.ResponseData,
    id: RequestId,
  ): Promise<JSONRPCResponse | null> {
    const { statusCode } = response;
    if (this.options.modernVersion === undefined || statusCode < 400 || statusCode >= 500)
      return null;
    if (statusCode === 401 || statusCode === 403) return null;
    if (!String(response.headers['content-type'] ?? '').includes('application/json')) return null;
    const body = await readJsonBody(response.body, this.options.limits);
    if (
      !(body instanceof UpstreamFailure) &&
      'error' in body &&
      (body.id === id || body.id === null || body.id === undefined)
    )
      return { ...body, id };
    throw new UpstreamFailure(
      'http',
      `HTTP ${statusCode}: ${body instanceof UpstreamFailure ? body.message : JSON.stringify(body).slice(0, ERROR_BODY_LIMIT)}`,
      statusCode,
    );
  }

  private async refuseFailure(response: Dispatcher.ResponseData): Promise<void> {
    if (response.statusCode < 400) return;
    const text = (await response.body.text().catch(() => '')).slice(0, ERROR_BODY_LIMIT);
    if (response.statusCode === 404 && this.sessionId !== undefined)
      throw new UpstreamFailure('session-expired', 'the upstream no longer knows the session', 404);
    throw new UpstreamFailure('http', `HTTP ${response.statusCode}: ${text}`, response.statusCode);
  }

  /**
   * Sends one HTTP request. With OAuth, a 401 means the token went bad before its time (revoked,
   * or the upstream's clock): it is refreshed once and the request sent again. A 403 that asks
   * for more scope needs a new authorization.
   */
  private async dispatch(
    method: 'POST' | 'GET' | 'DELETE',
    message: JSONRPCMessage | null,
    dispatcher: Dispatcher,
    options: RequestExtras = {},
  ): Promise<Dispatcher.ResponseData> {
    const { bearer } = this.options;
    if (!bearer) return this.sendOnce(method, message, dispatcher, options, undefined);
    const token = await bearer.token();
    let response = await this.sendOnce(method, message, dispatcher, options, token);
    if (response.statusCode === 401) {
      await response.body.dump();
      response = await this.sendOnce(
        method,
        message,
        dispatcher,
        options,
        await bearer.token(token),
      );
    }
    const wanted = response.statusCode === 403 ? insufficientScope(response) : null;
    if (!wanted) return response;
    await response.body.dump();
    throw await bearer.tooNarrow(wanted.scope);
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

interface RequestExtras {
  signal?: AbortSignal;
  lastEventId?: string;
  headers?: Record<string, string>;
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

function isEventStream(response: Dispatcher.ResponseData): boolean {
  return String(response.headers['content-type'] ?? '').includes('text/event-stream');
}

function retryDelay(position: StreamPosition): number {
  return Math.min(position.retryMs ?? DEFAULT_RETRY_MS, MAX_RETRY_MS);
}
