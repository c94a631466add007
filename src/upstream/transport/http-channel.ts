import { setTimeout as delay } from 'node:timers/promises';
import {
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/client';
import { type Dispatcher } from 'undici';
import { readBounded } from '../../common/remote-body';
import { inSpan, SpanKind, withTraceHeaders } from '../../observability/request-context';
import {
  type Channel,
  type ChannelListener,
  type ChannelRequestOptions,
  type HttpChannelOptions,
  type HttpRequestExtras,
} from './channel';
import { sentWithBearer } from './bearer-dispatch';
import { isAnswer, readEventStream, readJsonAnswer, type StreamPosition } from './sse-reader';
import { UpstreamFailure } from '../upstream-error';
import { upstreamRetryAt } from '../resilience/retry-after';

/** How much of an HTTP error's body is read, and shown in its failure; the rest is dropped. */
const ERROR_BODY_LIMIT = 2048;
/** When an upstream closes a stream without saying when to come back. */
const DEFAULT_RETRY_MS = 1000;
/** Longest wait an upstream's `retry` may ask for before a stream is resumed. */
const MAX_RETRY_MS = 30_000;
/** Resumptions of one stream in a row that bring nothing new before it is given up. */
const MAX_FRUITLESS_RESUMES = 3;

/**
 * A Streamable HTTP upstream. Each request is a POST of its own, carrying the credentials, the
 * protocol version and a 2025 session's id; its answer comes as a JSON body or on the request's
 * event stream, resumed with GET and `Last-Event-ID` while the upstream closes it before answering
 * (SEP-1699 polling, or a dropped connection after an event id). A status that is a failure
 * becomes an UpstreamFailure (or, from a 2026-07-28 upstream, the JSON-RPC error it carries).
 * This is a 2026-07-28 upstream's whole channel, and the tools/call hot path: undici's pooled
 * keep-alive connections instead of fetch and web streams. What a 2025 session adds (its own
 * stream, its end upstream) is HttpSessionChannel's.
 */
export class HttpChannel implements Channel {
  /** A 2025 session's, from its initialize; a 2026-07-28 upstream has none. */
  protected sessionId: string | undefined;
  protected listener: ChannelListener | null = null;
  private protocolVersion: string | undefined;

  constructor(protected readonly options: HttpChannelOptions) {
    this.protocolVersion = options.modernVersion;
  }

  async start(listener: ChannelListener): Promise<void> {
    this.listener = listener;
  }

  established(protocolVersion: string): void {
    this.protocolVersion = protocolVersion;
  }

  /** Without a session nothing comes outside requests. */
  async listen(): Promise<void> {}

  /** Without a session there is nothing to end upstream; the sockets are the pool's. */
  async close(): Promise<void> {}

  /** One request to the upstream, in a client span whose context its `traceparent` carries. */
  request(message: JSONRPCRequest, options: ChannelRequestOptions): Promise<JSONRPCResponse> {
    return inSpan(
      `upstream ${message.method}`,
      () => ({
        'rpc.system': 'jsonrpc',
        'rpc.method': message.method,
        'server.address': this.options.url.hostname,
        'url.full': this.options.url.origin + this.options.url.pathname,
      }),
      () => this.exchange(message, options),
      SpanKind.CLIENT,
    );
  }

  async send(message: JSONRPCNotification | JSONRPCResponse): Promise<void> {
    const response = await this.dispatch('POST', message);
    await this.refusal(response);
    await response.body.dump();
  }

  /**
   * Sends one HTTP request, with the bearer token of an OAuth upstream (see sentWithBearer);
   * streams (GETs and long-lived POSTs) go through their own pool.
   */
  protected dispatch(
    method: 'POST' | 'GET' | 'DELETE',
    message: JSONRPCMessage | null,
    options: HttpRequestExtras = {},
  ): Promise<Dispatcher.ResponseData> {
    const { bearer, dispatchers } = this.options;
    const dispatcher =
      method === 'GET' || options.longLived ? dispatchers.streams : dispatchers.requests;
    const send = (token?: string) => this.sendOnce(method, message, dispatcher, options, token);
    return bearer ? sentWithBearer(bearer, send) : send();
  }

  /**
   * Throws the failure an HTTP status says, if any. A 2026-07-28 upstream answers a request `id`
   * it refuses (a version it does not serve, an unknown method, a header mismatch) with a 4xx
   * whose body is the JSON-RPC error: that error is its answer, and returned. Auth refusals and
   * bodies that are no such error stay HTTP failures.
   */
  protected async refusal(
    response: Dispatcher.ResponseData,
    id?: RequestId,
  ): Promise<JSONRPCResponse | null> {
    const { statusCode } = response;
    if (statusCode < 400) return null;
    let text: string;
    if (id !== undefined && this.carriesRpcError(response)) {
      const body = await readJsonAnswer(response.body, this.options.limits, id, () => undefined);
      if (body instanceof UpstreamFailure) text = body.message;
      else if ('error' in body) return body;
      else text = JSON.stringify(body);
    } else
      text = (await readBounded(response.body, ERROR_BODY_LIMIT).catch(() => null))?.text ?? '';
    if (statusCode === 404 && this.sessionId !== undefined)
      throw new UpstreamFailure('session-expired', 'the upstream no longer knows the session', 404);
    throw new UpstreamFailure(
      'http',
      `HTTP ${statusCode}: ${text.slice(0, ERROR_BODY_LIMIT)}`,
      statusCode,
      upstreamRetryAt(statusCode, response.headers['retry-after']),
    );
  }

  private async exchange(
    message: JSONRPCRequest,
    options: ChannelRequestOptions,
  ): Promise<JSONRPCResponse> {
    const response = await this.dispatch('POST', message, options);
    if (message.method === 'initialize') {
      const sessionId = response.headers['mcp-session-id'];
      if (typeof sessionId === 'string' && sessionId !== '') this.sessionId = sessionId;
    }
    const refusal = response.statusCode < 400 ? null : await this.refusal(response, message.id);
    if (refusal) return refusal;
    const none = noAnswer(response);
    if (none) {
      await response.body.dump().catch(() => undefined);
      throw none;
    }
    if (!isEventStream(response)) {
      const { limits } = this.options;
      const answer = await readJsonAnswer(response.body, limits, message.id, options.onMessage);
      if (answer instanceof UpstreamFailure) throw answer;
      // Lines after the answer are read to the end, keeping the connection for the pool.
      if (!response.body.readableEnded) void response.body.dump().catch(() => undefined);
      return answer;
    }
    return this.readAnswer(response, message.id, options);
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
      if (!isAnswer(incoming, id, options.onMessage)) return false;
      answer = incoming as JSONRPCResponse;
      return true;
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
    const response = await this.dispatch('GET', null, { signal, lastEventId });
    await this.refusal(response);
    if (!isEventStream(response)) {
      await response.body.dump();
      throw new UpstreamFailure(
        'protocol',
        'the upstream resumed a stream with something other than an event stream',
      );
    }
    return response;
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
    options: HttpRequestExtras,
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

/** How long to wait before a stream the upstream ended is resumed: its `retry`, within bounds. */
export function retryDelay(position: StreamPosition): number {
  return Math.min(position.retryMs ?? DEFAULT_RETRY_MS, MAX_RETRY_MS);
}

function isEventStream(response: Dispatcher.ResponseData): boolean {
  return String(response.headers['content-type'] ?? '').includes('text/event-stream');
}

/**
 * Why a response below 400 holds no answer to a request: a redirect (not followed: it could carry
 * the credentials elsewhere, and the operator should register the URL it names), or a 202 or 204.
 */
function noAnswer({ statusCode, headers }: Dispatcher.ResponseData): UpstreamFailure | null {
  if (statusCode >= 300) {
    const to = typeof headers.location === 'string' ? ` to ${headers.location.slice(0, 200)}` : '';
    return new UpstreamFailure(
      'protocol',
      `the upstream answered with a redirect (HTTP ${statusCode}${to}), which Portico does not follow: register the URL it names`,
    );
  }
  if (statusCode !== 202 && statusCode !== 204) return null;
  return new UpstreamFailure(
    'protocol',
    `the upstream answered with HTTP ${statusCode} and no message`,
  );
}
