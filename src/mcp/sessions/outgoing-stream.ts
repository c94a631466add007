import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import { type ClientStream, type StreamOwner } from '../streams/client-stream';
import { STREAM_BACKLOG_BYTES } from '../streams/sse-response';
import { type StoredEvent } from './stream-events.store';

interface Pending {
  message: JSONRPCMessage;
  eventId?: string;
  final?: boolean;
  /** The message as JSON, when made already. */
  text?: string;
}

/** Event ids written to one stream that are remembered, to drop a message that comes twice. */
const REMEMBERED_IDS = 1000;

/**
 * A stream the client holds open on this replica. While stored messages are replayed to a client
 * that resumed it, live ones wait, at most STREAM_BACKLOG_BYTES of them: past that the stream ends
 * and the client resumes it again (what waited was stored, so it loses nothing), so that a long
 * replay to a slow client does not make the replica hold all an upstream sends meanwhile. A
 * message that was replayed and also arrives live goes out once.
 */
export class OutgoingStream {
  private replaying: Pending[] | null = null;
  private waitingBytes = 0;
  private readonly written = new Set<string>();

  constructor(
    private readonly sse: ClientStream,
    readonly owner: StreamOwner,
  ) {}

  get open(): boolean {
    return this.sse.open;
  }

  write(message: JSONRPCMessage, eventId?: string, final = false, text?: string): void {
    if (!this.replaying) {
      this.send({ message, eventId, final, text });
      return;
    }
    text ??= JSON.stringify(message);
    this.waitingBytes += text.length;
    if (this.waitingBytes <= STREAM_BACKLOG_BYTES)
      this.replaying.push({ message, eventId, final, text });
    else if (this.sse.open) {
      this.replaying.length = 0;
      this.sse.end();
    }
  }

  /**
   * Writes what `stored` finds, a page at a time (it stops once the client has gone, or been
   * dropped for not reading), then what arrived meanwhile.
   */
  async replay(stored: AsyncIterable<StoredEvent[]>): Promise<void> {
    this.replaying = [];
    this.waitingBytes = 0;
    try {
      for await (const page of stored) {
        for (const { message, eventId } of page)
          this.send({ message, eventId, final: isAnswer(message) });
        if (!this.sse.open) break;
      }
    } finally {
      const live = this.replaying;
      this.replaying = null;
      for (const pending of live) this.send(pending);
    }
  }

  private send({ message, eventId, final, text }: Pending): void {
    if (eventId !== undefined) {
      if (this.written.has(eventId)) return;
      this.written.add(eventId);
      if (this.written.size > REMEMBERED_IDS)
        this.written.delete(this.written.values().next().value!);
    }
    this.sse.message(message, eventId, text);
    if (final) this.sse.end();
  }

  end(): void {
    this.sse.end();
  }
}

/**
 * A replayed response ends a request's resumed stream: nothing of that request follows it. (The
 * session's own stream carries no responses.)
 */
function isAnswer(message: JSONRPCMessage): boolean {
  return 'result' in message || 'error' in message;
}
