import { randomBytes } from 'node:crypto';
import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import { type ServerResponse } from 'node:http';
import { type Exchange, primingId, type StreamSink } from '../streams/client-stream';
import { SseResponse } from '../streams/sse-response';

/**
 * The answer to one POSTed request. It stays plain JSON unless something must go out before the
 * answer (progress, logging, a sampling request); then the response becomes an event stream whose
 * events are stored and carry ids, so that a client whose connection drops resumes it with GET and
 * `Last-Event-ID`, on any replica.
 */
export class HttpExchange implements Exchange {
  private sse: SseResponse | null = null;
  private streamId: string | null = null;
  private done = false;
  /** The client's connection closed before the answer: messages go to where it resumes. */
  private detached = false;
  private delivery: Promise<void> = Promise.resolve();

  /** `streaming` hears when the answer becomes an event stream. */
  constructor(
    private readonly response: ServerResponse,
    private readonly sink: StreamSink,
    private readonly streaming: () => void = () => undefined,
  ) {
    response.on('close', () => {
      if (!this.done || this.sse) this.detached = true;
    });
  }

  write(message: JSONRPCMessage): void {
    if (this.done) return;
    this.deliver(message, false);
  }

  finish(message: JSONRPCMessage): void {
    if (this.done) return;
    this.done = true;
    if (this.sse || this.detached) {
      this.deliver(message, true);
      return;
    }
    const body = JSON.stringify(message);
    this.response.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    });
    this.response.end(body);
  }

  /**
   * A request must be answered with JSON or an event stream; a stream may end before the answer,
   * so a cancelled request's stream (empty if nothing went out yet) just ends.
   */
  cancel(): void {
    if (this.done) return;
    this.done = true;
    if (this.sse) this.delivery = this.delivery.then(() => this.sse?.end());
    else if (!this.detached) new SseResponse(this.response).end();
  }

  /** In order, each stored first, so that what the client saw it can always resume after. */
  private deliver(message: JSONRPCMessage, final: boolean): void {
    const sse = this.sse ?? this.stream();
    const streamId = this.streamId!;
    this.delivery = this.delivery.then(async () => {
      const eventId = await this.sink.store(streamId, message).catch(() => undefined);
      if (!this.detached && sse.open) {
        sse.message(message, eventId);
        if (final) sse.end();
      } else if (eventId !== undefined) {
        this.sink.forward(streamId, eventId, message, final);
      }
    });
  }

  private stream(): SseResponse {
    this.streamId = randomBytes(8).toString('hex');
    this.sse = new SseResponse(this.response);
    this.streaming();
    this.sse.prime(primingId(this.streamId));
    return this.sse;
  }
}

/**
 * An exchange whose every message, the answer too, goes out on the session's stream: the older
 * HTTP+SSE transport, where a POST only gets 202.
 */
export class SessionStreamExchange implements Exchange {
  private done = false;

  constructor(private readonly send: (message: JSONRPCMessage) => void) {}

  write(message: JSONRPCMessage): void {
    if (!this.done) this.send(message);
  }

  finish(message: JSONRPCMessage): void {
    if (this.done) return;
    this.done = true;
    this.send(message);
  }

  cancel(): void {
    this.done = true;
  }
}
