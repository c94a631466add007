import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * Reads an event stream by hand: events come out one by one, with their ids, and the reader can
 * drop the connection at any point, as a client whose network failed would.
 */
export class SseReader {
  private readonly events: EventSourceMessage[] = [];
  private readonly waiters: (() => void)[] = [];
  private done = false;
  private readonly abort: AbortController;

  constructor(response: Response, abort: AbortController) {
    this.abort = abort;
    const parser = createParser({
      onEvent: (event) => {
        this.events.push(event);
        for (const wake of this.waiters.splice(0)) wake();
      },
    });
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
          parser.feed(decoder.decode(chunk, { stream: true }));
      } catch {
        // The reader dropped the connection.
      } finally {
        this.done = true;
        for (const wake of this.waiters.splice(0)) wake();
      }
    })();
  }

  /** The next event, or null once the stream has ended. */
  async next(timeoutMs = 10_000): Promise<EventSourceMessage | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.events.length === 0 && !this.done) {
      if (Date.now() > deadline) throw new Error('no event in time');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.events.shift() ?? null;
  }

  /** The next event that carries a message, parsed. */
  async nextMessage(
    timeoutMs?: number,
  ): Promise<{ id?: string; message: Record<string, unknown> } | null> {
    for (;;) {
      const event = await this.next(timeoutMs);
      if (!event) return null;
      if (event.data !== '')
        return { id: event.id, message: JSON.parse(event.data) as Record<string, unknown> };
    }
  }

  /** Drops the connection without a goodbye. */
  drop(): void {
    this.abort.abort();
  }
}

/** Opens a request with `fetch` and reads its answer as an event stream. */
export async function openSse(
  url: string,
  init: RequestInit,
): Promise<{ response: Response; reader: SseReader }> {
  const abort = new AbortController();
  const response = await fetch(url, { ...init, signal: abort.signal });
  return { response, reader: new SseReader(response, abort) };
}
