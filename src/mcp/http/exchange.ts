import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type Response } from 'express';

/** Where the messages about one client request go. */
export interface Exchange {
  /** A notification or request about the client's request, before its answer. */
  write(message: JSONRPCMessage): void;
  /** The answer; nothing more goes out after it. */
  finish(message: JSONRPCMessage): void;
  /** Ends the exchange with no answer: the client cancelled the request, and gets none. */
  cancel(): void;
}

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

function sseEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * The answer to one POSTed request. It stays plain JSON unless something must go out before the
 * answer (progress, logging, a sampling request), in which case the response becomes an SSE stream.
 */
export class HttpExchange implements Exchange {
  private streaming = false;
  private ended = false;

  constructor(private readonly response: Response) {
    response.on('close', () => {
      this.ended = true;
    });
  }

  get open(): boolean {
    return !this.ended;
  }

  write(message: JSONRPCMessage): void {
    if (this.ended) return;
    if (!this.streaming) {
      this.response.writeHead(200, SSE_HEADERS);
      this.streaming = true;
    }
    this.response.write(sseEvent(message));
  }

  finish(message: JSONRPCMessage): void {
    if (this.ended) return;
    this.ended = true;
    if (this.streaming) {
      this.response.end(sseEvent(message));
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
    if (this.ended) return;
    this.ended = true;
    if (!this.streaming) this.response.writeHead(200, SSE_HEADERS);
    this.response.end();
  }
}

/** Keeps the answer in memory; used when a replica restores a session by replaying its initialize. */
export class CapturedExchange implements Exchange {
  readonly answer: Promise<JSONRPCMessage>;
  private resolve!: (message: JSONRPCMessage) => void;

  constructor() {
    this.answer = new Promise((resolve) => (this.resolve = resolve));
  }

  write(): void {}

  finish(message: JSONRPCMessage): void {
    this.resolve(message);
  }

  cancel(): void {}
}

const KEEPALIVE_MS = 15_000;

/** The session's standalone stream (GET): messages not about any one request. */
export class EventStream {
  private readonly keepalive: NodeJS.Timeout;
  private ended = false;

  constructor(
    private readonly response: Response,
    onClose: () => void,
  ) {
    response.writeHead(200, SSE_HEADERS);
    response.flushHeaders();
    response.write(': stream open\n\n');
    this.keepalive = setInterval(() => response.write(': keepalive\n\n'), KEEPALIVE_MS).unref();
    response.on('close', () => {
      this.ended = true;
      clearInterval(this.keepalive);
      onClose();
    });
  }

  get open(): boolean {
    return !this.ended;
  }

  write(message: JSONRPCMessage): void {
    if (!this.ended) this.response.write(sseEvent(message));
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.keepalive);
    this.response.end();
  }
}
