/**
 * `work` for each item, at most `limit` at a time; resolves to the results in the items' order.
 * For many reads that share a pool with requests (the database's connections): all at once, they
 * would queue ahead of the requests, and wait past the pool's own time limit.
 */
export async function boundedAll<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
