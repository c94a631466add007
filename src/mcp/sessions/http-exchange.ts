import { randomBytes } from 'node:crypto';
import { type ServerResponse } from 'node:http';
import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import { type Exchange, primingId, type StreamSink } from '../streams/client-stream';
import { DeliveryQueue } from '../streams/delivery-queue';
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
  private readonly delivery = new DeliveryQueue();

  /**
   * `streaming` hears when the answer becomes an event stream; `behind`, when a message finds
   * the stream too far behind to take it (see DeliveryQueue).
   */
  constructor(
    private readonly response: ServerResponse,
    private readonly sink: StreamSink,
    private readonly streaming: () => void,
    private readonly behind: () => void,
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
    if (this.sse) this.delivery.add(null, async () => this.sse?.end(), true);
    else if (!this.detached) new SseResponse(this.response).end();
  }

  /** In order, each stored first, so that what the client saw it can always resume after. */
  private deliver(message: JSONRPCMessage, final: boolean): void {
    const sse = this.sse ?? this.stream();
    const streamId = this.streamId!;
    const queued = this.delivery.add(
      message,
      async () => {
        const eventId = await this.sink.store(streamId, message).catch(() => undefined);
        if (!this.detached && sse.open) {
          sse.message(message, eventId);
          if (final) sse.end();
        } else if (eventId !== undefined) {
          this.sink.forward(streamId, eventId, message, final);
        }
      },
      final,
    );
    if (!queued) this.behind();
  }

  private stream(): SseResponse {
    this.streamId = randomBytes(8).toString('hex');
    this.sse = new SseResponse(this.response);
    this.streaming();
    this.sse.prime(primingId(this.streamId));
    return this.sse;
  }
}
