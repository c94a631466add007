/**
 * Calls `fire` once a burst of pokes has been quiet for `quietMs`, and at the latest `maxWaitMs`
 * after the burst began, so a steady stream of pokes still fires now and then.
 */
export class Debouncer {
  private quietTimer: NodeJS.Timeout | null = null;
  private maxTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly fire: () => void,
    private readonly quietMs: number,
    private readonly maxWaitMs: number,
  ) {}

  poke(): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.flush(), this.quietMs);
    this.maxTimer ??= setTimeout(() => this.flush(), this.maxWaitMs);
  }

  cancel(): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    if (this.maxTimer) clearTimeout(this.maxTimer);
    this.quietTimer = null;
    this.maxTimer = null;
  }

  private flush(): void {
    this.cancel();
    this.fire();
  }
}
