import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import { type ServerResponse } from 'node:http';
import { SseResponse } from '../streams/sse-response';

/**
 * The answer to one 2026-07-28 request: plain JSON, unless something about the request goes out
 * first (progress, logs), when it becomes an event stream that ends with the answer. No event ids
 * and no replay: on this wire a dropped stream loses the request, and closing it is the cancel.
 */
export class ModernExchange {
  private sse: SseResponse | null = null;
  private done = false;
  private readonly abort = new AbortController();

  /** `streaming` hears when the answer becomes an event stream. */
  constructor(
    private readonly response: ServerResponse,
    private readonly streaming: () => void,
  ) {
    response.on('close', () => {
      if (!this.done) this.abort.abort('the client closed the request');
    });
  }

  /** Aborted when the client goes away before the answer. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  write(message: JSONRPCMessage): void {
    if (this.done || this.abort.signal.aborted) return;
    if (!this.sse) {
      this.sse = new SseResponse(this.response, { keepalive: true });
      this.streaming();
    }
    this.sse.message(message);
  }

  finish(message: JSONRPCMessage, status: number): void {
    if (this.done) return;
    this.done = true;
    if (this.sse) {
      this.sse.message(message);
      this.sse.end();
      return;
    }
    if (this.response.destroyed) return;
    const body = JSON.stringify(message);
    this.response.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    });
    this.response.end(body);
  }
}
