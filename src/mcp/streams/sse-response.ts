import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import { type ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { type ClientStream } from './client-stream';

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

const KEEPALIVE_MS = 15_000;

/**
 * What a client may leave unread on a stream (in Portico's buffers and its socket's) beyond the
 * largest event the stream has carried: past it, at the next write, the client is dropped, so that
 * one that stops reading cannot make the replica hold all that an upstream sends it. A larger
 * message still goes out whole, and may be followed by others.
 */
export const STREAM_BACKLOG_BYTES = 8 * 1024 * 1024;

const logger = new Logger('SseResponse');

/**
 * An HTTP response held open as a `text/event-stream`: events with ids, a priming event, comments
 * as keep-alives. It says when the client has gone, or was dropped for not reading (see
 * STREAM_BACKLOG_BYTES); writing after that is a no-op.
 */
export class SseResponse implements ClientStream {
  private ended = false;
  private largestEvent = 0;
  private readonly keepalive?: NodeJS.Timeout;
  private readonly closeListeners: (() => void)[] = [];

  constructor(
    private readonly response: ServerResponse,
    options: { keepalive?: boolean } = {},
  ) {
    if (!response.headersSent) response.writeHead(200, SSE_HEADERS);
    response.flushHeaders();
    if (options.keepalive)
      this.keepalive = setInterval(() => this.comment('keepalive'), KEEPALIVE_MS).unref();
    response.on('close', () => {
      if (!this.ended) this.finished();
    });
  }

  get open(): boolean {
    return !this.ended;
  }

  /** Runs `listener` when the stream ends; at once when it has ended already. */
  onClose(listener: () => void): void {
    if (this.ended) listener();
    else this.closeListeners.push(listener);
  }

  /** An event with no message, so the client holds an id to resume from (SEP-1699). */
  prime(id: string): void {
    this.write(`id: ${id}\ndata: \n\n`);
  }

  message(message: JSONRPCMessage, id?: string, text = JSON.stringify(message)): void {
    this.write(`${id === undefined ? '' : `id: ${id}\n`}event: message\ndata: ${text}\n\n`);
  }

  /** An event of another type, for the older HTTP+SSE transport's `endpoint` event. */
  event(type: string, data: string): void {
    this.write(`event: ${type}\ndata: ${data}\n\n`);
  }

  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  end(): void {
    if (this.ended) return;
    this.response.end();
    this.finished();
  }

  private write(chunk: string): void {
    if (this.ended) return;
    if (this.response.writableLength <= STREAM_BACKLOG_BYTES + this.largestEvent) {
      this.largestEvent = Math.max(this.largestEvent, Buffer.byteLength(chunk));
      this.response.write(chunk);
      return;
    }
    logger.warn(
      `Closed an event stream whose client left more than ${STREAM_BACKLOG_BYTES} bytes unread`,
    );
    this.finished();
    this.response.destroy();
  }

  private finished(): void {
    this.ended = true;
    clearInterval(this.keepalive);
    for (const listener of this.closeListeners) listener();
  }
}
