import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Cuts a long computation into turns of the event loop: `due()` says the current turn has run
 * for its budget, `pause()` lets everything waiting run before the next one. Requests keep being
 * served while a large index builds.
 */
export class TimeSlicer {
  private turnStart = performance.now();

  constructor(private readonly budgetMs: number) {}

  due(): boolean {
    return performance.now() - this.turnStart >= this.budgetMs;
  }

  async pause(): Promise<void> {
    await nextTurn();
    this.turnStart = performance.now();
  }

  /** Pauses only when the turn has run for its budget. */
  async check(): Promise<void> {
    if (this.due()) await this.pause();
  }
}
