/** How long the queue waits before it tries the channel again, doubling up to the maximum. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2000;

export interface OutboundQueueOptions {
  /** Hands one payload to the channel; settles (either way) within the channel's own timeout. */
  send(payload: string): Promise<void>;
  maxBytes: number;
  /** What is sent once the queue has drained after dropping payloads: other replicas start over. */
  resyncPayload(): string;
  /** The channel failed after working (or at the first try); later failures are not reported. */
  onFailing(error: unknown): void;
  /** The channel took a payload again after failing. */
  onRecovered(queued: number): void;
  /** Payloads were dropped because the queue was full. */
  onDropped(): void;
}

interface Item {
  payload: string;
  bytes: number;
  /** Releases the publisher who may still wait for this payload. */
  release(): void;
}

/**
 * What a replica publishes, waiting for the channel in order. A publisher waits for its payload
 * to be sent only while the channel works, and at most `timeoutMs`; while it fails the payload is
 * queued and the publisher returns at once. The queue holds at most `maxBytes`: past that a
 * payload is dropped, and once the queue drains a resync tells the other replicas to start over.
 * One payload is in flight at a time, so a hanging channel holds one request, not one per event.
 */
export class OutboundQueue {
  private readonly items: Item[] = [];
  private bytes = 0;
  private draining = false;
  private failing = false;
  private overflowed = false;
  private closed = false;
  private retryMs = RETRY_FIRST_MS;
  private wake: (() => void) | null = null;
  /** Payloads dropped since start. */
  dropped = 0;

  constructor(private readonly options: OutboundQueueOptions) {}

  get length(): number {
    return this.items.length;
  }

  get queuedBytes(): number {
    return this.bytes;
  }

  /** Queues the payload; resolves once it is sent or `timeoutMs` has passed, and never rejects. */
  push(payload: string, timeoutMs: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    const bytes = Buffer.byteLength(payload);
    if (this.bytes + bytes > this.options.maxBytes) {
      this.dropped += 1;
      if (!this.overflowed) this.options.onDropped();
      this.overflowed = true;
      return Promise.resolve();
    }
    let timer: NodeJS.Timeout | undefined;
    const sent = new Promise<void>((resolve) => {
      this.items.push({ payload, bytes, release: resolve });
      this.bytes += bytes;
      if (this.failing || timeoutMs === 0) {
        resolve();
        return;
      }
      timer = setTimeout(() => {
        // A channel this slow counts as failing: later publishers do not wait for it too.
        this.fail(new Error(`the channel did not take an event within ${timeoutMs} ms`));
        resolve();
      }, timeoutMs);
    });
    // Not `kick`: while the channel fails, a new event waits for the next try like the others.
    void this.drain();
    return sent.finally(() => clearTimeout(timer));
  }

  /** Tries the channel now rather than after the current pause (it says it is back). */
  kick(): void {
    if (this.wake) this.wake();
    else void this.drain();
  }

  /** Stops sending; whatever is queued is dropped and every waiting publisher released. */
  close(): void {
    this.closed = true;
    this.wake?.();
    for (const item of this.items.splice(0)) item.release();
    this.bytes = 0;
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (!this.closed) {
        if (this.items.length === 0 && this.overflowed) {
          this.overflowed = false;
          const payload = this.options.resyncPayload();
          this.items.push({ payload, bytes: Buffer.byteLength(payload), release: () => undefined });
          this.bytes += Buffer.byteLength(payload);
        }
        const head = this.items[0];
        if (!head) return;
        try {
          await this.options.send(head.payload);
        } catch (error) {
          this.fail(error);
          // Their events stay queued; their requests need not wait for the channel to return.
          for (const item of this.items) item.release();
          await this.pause(this.retryMs);
          this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
          continue;
        }
        if (this.items[0] === head) {
          this.items.shift();
          this.bytes -= head.bytes;
        }
        head.release();
        this.retryMs = RETRY_FIRST_MS;
        if (this.failing) {
          this.failing = false;
          this.options.onRecovered(this.items.length);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private fail(error: unknown): void {
    if (!this.failing) this.options.onFailing(error);
    this.failing = true;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.wake = done;
    });
  }
}
