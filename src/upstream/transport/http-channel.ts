import { setTimeout as delay } from 'node:timers/promises';
import {
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/client';
import { type Dispatcher } from 'undici';
import { inSpan, SpanKind } from '../../observability/spans';
import { type Channel, type ChannelListener, type ChannelRequestOptions } from './channel';
import { isJsonRpcResponse } from './message-bounds';
import { readEventStream, readJsonBody, type StreamPosition } from './sse-reader';
import { UpstreamFailure } from '../upstream-error';
import { isEventStream, UpstreamHttp, type UpstreamHttpOptions } from './upstream-http';

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

/**
 * A Streamable HTTP upstream session. A request's stream that the upstream closes before
 * answering (SEP-1699 polling, or a dropped connection after an event id) is resumed with GET and
 * `Last-Event-ID`; so is the session's own GET stream.
 */
export class HttpChannel implements Channel {
  private readonly http: UpstreamHttp;
  private listener: ChannelListener | null = null;
  private readonly closing = new AbortController();

  constructor(private readonly options: UpstreamHttpOptions) {
    this.http = new UpstreamHttp(options);
  }

  start(listener: ChannelListener): Promise<void> {
    this.listener = listener;
    return Promise.resolve();
  }

  established(protocolVersion: string): void {
    this.http.protocolVersion = protocolVersion;
  }

  /**
   * Opens the session's own stream, and waits until the upstream has taken it (or refused it):
   * a request the upstream makes of the client outside any call's stream, as soon as the first
   * call starts, goes nowhere when this stream is not yet there.
   */
  listen(): Promise<void> {
    if (this.http.sessionId === undefined) return Promise.resolve();
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
    const response = await this.http.dispatch('POST', message, options);
    if (message.method === 'initialize') {
      const sessionId = response.headers['mcp-session-id'];
      if (typeof sessionId === 'string' && sessionId !== '') this.http.sessionId = sessionId;
    }
    const refusal = await this.http.refusal(response, message.id);
    if (refusal) return refusal;
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
    const response = await this.http.dispatch('POST', message);
    await this.http.refusal(response);
    await response.body.dump();
  }

  async close(): Promise<void> {
    this.closing.abort();
    if (this.http.sessionId === undefined) return;
    // Ends the session upstream; an upstream that cannot be reached now has nothing to end.
    const response = await this.http
      .dispatch('DELETE', null, {
        signal: AbortSignal.timeout(CLOSE_TIMEOUT_MS),
      })
      .catch(() => null);
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
    const response = await this.http.dispatch('GET', null, {
      signal,
      lastEventId,
    });
    await this.http.refusal(response);
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
        const response = await this.http
          .dispatch('GET', null, {
            signal,
            lastEventId: position.lastEventId,
          })
          .finally(opened);
        if (response.statusCode === 405) {
          await response.body.dump();
          return;
        }
        await this.http.refusal(response);
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
}

function retryDelay(position: StreamPosition): number {
  return Math.min(position.retryMs ?? DEFAULT_RETRY_MS, MAX_RETRY_MS);
}
