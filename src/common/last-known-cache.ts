import { type Logger } from '@nestjs/common';
import { isDatabaseUnavailable } from './database-errors';
import { errorMessage } from './error-message';
import { Memo } from './memo';

export interface LastKnownCacheOptions<V> {
  /** How long an entry is trusted before it is read again; absent: until it is invalidated. */
  ttlMs?: (value: V) => number;
  /** Entries kept at most; past it the cache starts over. */
  limit: number;
  /** Told each time a lookup is answered with what was known before the database became unavailable. */
  onStale: () => void;
  logger: Logger;
  /** What an entry is, for log lines ("user …"). */
  describe: (key: string) => string;
}

interface Entry<V> {
  value: V;
  at: number;
  /** A read found the database unavailable: the entry serves as it is until a read succeeds. */
  bridging: boolean;
}

/**
 * A read-through cache of database reads that keeps serving through a database outage of any
 * length, stale if need be:
 * - an entry past its TTL that found something is answered at once and read again behind the
 *   answer, so that no request waits on the database for what is known;
 * - an entry that found nothing, or one read before `invalidateAll` (a resync: changes may have
 *   been missed), is read again first;
 * - when a read finds the database unavailable, the entry is answered as it was, and from then on
 *   at once, read again behind each answer until a read succeeds: a partitioned database would
 *   otherwise hold every request for the whole connect timeout;
 * - `delete` (an announced change: a revocation) drops an entry for good, so it never serves.
 * Reads of one key share one flight, and a read under way when anything is invalidated is not
 * kept (it may have read the row before the change).
 */
export class LastKnownCache<V> {
  private readonly entries: Memo<string, Entry<V>>;
  private readonly flights = new Map<string, Promise<V>>();
  private generation = 0;
  private notBefore = 0;

  constructor(private readonly options: LastKnownCacheOptions<V>) {
    this.entries = new Memo(options.limit);
  }

  async get(key: string, read: () => Promise<V>, now = Date.now()): Promise<V> {
    const entry = this.entries.get(key);
    if (entry) {
      const current = entry.at >= this.notBefore;
      if (entry.bridging) this.options.onStale();
      else if (current && (!this.options.ttlMs || now - entry.at < this.options.ttlMs(entry.value)))
        return entry.value;
      if (entry.bridging || (current && entry.value !== null)) {
        this.refresh(key, read, now);
        return entry.value;
      }
    }
    try {
      return await this.read(key, read, now);
    } catch (error) {
      const bridged = entry && isDatabaseUnavailable(error) ? this.bridge(key, entry) : null;
      if (!bridged) throw error;
      this.options.onStale();
      return bridged.value;
    }
  }

  /** An announced change: the entry goes, and a read under way is not kept. */
  delete(key: string): void {
    this.generation += 1;
    this.entries.delete(key);
  }

  /** Changes may have been missed: every entry is read again before it serves, unless it cannot. */
  invalidateAll(): void {
    this.generation += 1;
    this.notBefore = Date.now();
  }

  /** Forgets everything, reads under way too. */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** A change elsewhere: reads under way are not kept. */
  invalidateFlights(): void {
    this.generation += 1;
  }

  private read(key: string, read: () => Promise<V>, now: number): Promise<V> {
    const flying = this.flights.get(key);
    if (flying) return flying;
    const generation = this.generation;
    const flight = read()
      .then((value) => {
        if (generation === this.generation) {
          this.entries.remember(key, { value, at: now, bridging: false });
        }
        return value;
      })
      .finally(() => this.flights.delete(key));
    this.flights.set(key, flight);
    return flight;
  }

  private refresh(key: string, read: () => Promise<V>, now: number): void {
    this.read(key, read, now).catch((error: unknown) => {
      const entry = this.entries.get(key);
      if (isDatabaseUnavailable(error)) {
        if (entry) this.bridge(key, entry);
        return;
      }
      this.options.logger.warn(
        `Could not read ${this.options.describe(key)} again: ${errorMessage(error)}`,
      );
    });
  }

  /**
   * Keeps the entry serving through the outage; what serves now, or null when the entry was
   * dropped meanwhile (an announced change). Readers that shared the failed read all get the
   * entry: the first marks it, the others find it marked (or read afresh by then).
   */
  private bridge(key: string, entry: Entry<V>): Entry<V> | null {
    const current = this.entries.get(key);
    if (!current) return null;
    if (current === entry && !entry.bridging) {
      const bridging = { ...entry, bridging: true };
      this.entries.set(key, bridging);
      return bridging;
    }
    return current;
  }
}
