/**
 * How many of something are in progress, by key and in all: the counts behind a bound per owner.
 * A key is forgotten when its count is back to nothing, so the tally is no larger than what is in
 * progress.
 */
export class Tally {
  private readonly counts = new Map<string, number>();
  private all = 0;

  /** The count of one key. */
  of(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** The count of every key together. */
  get total(): number {
    return this.all;
  }

  add(key: string, count = 1): void {
    this.counts.set(key, this.of(key) + count);
    this.all += count;
  }

  release(key: string, count = 1): void {
    const left = this.of(key) - count;
    if (left > 0) this.counts.set(key, left);
    else this.counts.delete(key);
    this.all -= count;
  }
}
