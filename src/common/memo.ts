/**
 * A map of what was worked out lately (a verified token, a compiled pattern, a client's digested
 * declaration), bounded by forgetting everything at once when full. The keys that matter repeat,
 * so they are soon worked out again; no eviction order is kept, as it would cost every hit more
 * than the rare miss it saves.
 */
export class Memo<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  /** Keeps the value, first forgetting everything if the memo is full; returns the value. */
  remember(key: K, value: V): V {
    if (this.size >= this.limit && !this.has(key)) this.clear();
    this.set(key, value);
    return value;
  }
}
