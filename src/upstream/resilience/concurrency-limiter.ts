export interface ConcurrencySettings {
  /** Calls running at once. */
  maxConcurrent: number;
  /** Calls waiting for one of them to end; beyond it a call is refused at once. */
  maxQueue: number;
  /** How long a call waits in the queue before it is refused. */
  queueTimeoutMs: number;
}

export type CapacityReason = 'queue-full' | 'queue-timeout';

/** A call refused for want of room: nothing was sent. */
export class CapacityRefusal extends Error {
  constructor(
    readonly reason: CapacityReason,
    message: string,
  ) {
    super(message);
    this.name = 'CapacityRefusal';
  }
}

interface Waiter {
  grant(): void;
}

/** Ends the call's hold on its slot; a second call does nothing. */
export type Release = () => void;

/**
 * At most `maxConcurrent` calls at once, then a queue of at most `maxQueue`, served in order,
 * each waiting at most `queueTimeoutMs`. So a slow upstream holds a bounded number of sockets and
 * a bounded amount of memory, and its callers learn it at once instead of piling up.
 */
export class ConcurrencyLimiter {
  private running = 0;
  private readonly queue: Waiter[] = [];

  constructor(private readonly settings: ConcurrencySettings) {}

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.queue.length;
  }

  /**
   * A slot, at once or after waiting in the queue. Rejects with a CapacityRefusal when the queue
   * is full or the wait runs out, and with the signal's reason when the caller gives up.
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.running < this.settings.maxConcurrent && this.queue.length === 0) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    const { maxConcurrent, maxQueue, queueTimeoutMs } = this.settings;
    if (this.queue.length >= maxQueue)
      return Promise.reject(
        new CapacityRefusal(
          'queue-full',
          `${this.running} calls are running and ${this.queue.length} waiting, the most allowed (UPSTREAM_MAX_CONCURRENT ${maxConcurrent}, UPSTREAM_QUEUE ${maxQueue})`,
        ),
      );
    return new Promise<Release>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
      };
      const waiter: Waiter = {
        grant: () => {
          leave();
          resolve(this.releaser());
        },
      };
      const onAbort = () => {
        leave();
        reject(signal?.reason as Error);
      };
      const timer = setTimeout(() => {
        leave();
        reject(
          new CapacityRefusal(
            'queue-timeout',
            `no call slot came free within ${queueTimeoutMs} ms (UPSTREAM_QUEUE_TIMEOUT_MS; ${this.running} calls running, UPSTREAM_MAX_CONCURRENT ${maxConcurrent})`,
          ),
        );
      }, queueTimeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /** The slot passes straight to the first waiter, so a newcomer never jumps the queue. */
  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue[0];
      if (next) next.grant();
      else this.running--;
    };
  }
}
