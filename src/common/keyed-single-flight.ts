interface Slot<T> {
  /** Settles when the last run queued for the key has finished. */
  tail: Promise<void>;
  /** A run queued behind the current one and not started yet; newcomers share it. */
  queued: Promise<T> | null;
  /** The run going now, if any. */
  running: Promise<T> | null;
  runs: number;
}

/**
 * At most one run per key at a time. A call that arrives while a run is going queues one more run
 * after it, and every further call shares that queued run: it has not started, so what it reads
 * is at least as fresh as what any of those callers asked for. A burst thus costs two runs at
 * most, and no caller gets a result older than its call.
 */
export class KeyedSingleFlight<T> {
  private readonly slots = new Map<string, Slot<T>>();

  run(key: string, task: () => Promise<T>): Promise<T> {
    let slot = this.slots.get(key);
    if (slot?.queued) return slot.queued;
    if (!slot) {
      slot = { tail: Promise.resolve(), queued: null, running: null, runs: 0 };
      this.slots.set(key, slot);
    }
    const owner = slot;
    const run: Promise<T> = owner.tail.then(() => {
      if (owner.queued === run) owner.queued = null;
      owner.running = run;
      return task();
    });
    owner.queued = run;
    owner.runs += 1;
    owner.tail = run.then(
      () => this.finish(key, owner),
      () => this.finish(key, owner),
    );
    return run;
  }

  /**
   * The newest run for the key that is queued or going, shared; a new run only when there is none.
   * For a caller who wants a result now rather than one fresher than its call.
   */
  join(key: string, task: () => Promise<T>): Promise<T> {
    const slot = this.slots.get(key);
    return slot?.queued ?? slot?.running ?? this.run(key, task);
  }

  /** Whether a run for the key is going or queued. */
  busy(key: string): boolean {
    return this.slots.has(key);
  }

  /** Settles once every run started or queued so far has finished. */
  async idle(): Promise<void> {
    await Promise.all([...this.slots.values()].map((slot) => slot.tail));
  }

  private finish(key: string, slot: Slot<T>): void {
    slot.runs -= 1;
    if (slot.queued === null) slot.running = null;
    if (slot.runs === 0 && this.slots.get(key) === slot) this.slots.delete(key);
  }
}
