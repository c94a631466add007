import { invalidParams } from './mcp-errors';

const CURSOR = /^o(\d{1,9})$/;

/** One page and an opaque cursor for the next; null for a cursor this never issued. */
export function paginate<T>(
  items: readonly T[],
  cursor: string | undefined,
  size: number,
): { items: T[]; nextCursor?: string } | null {
  let start = 0;
  if (cursor !== undefined) {
    const match = CURSOR.exec(cursor);
    if (!match) return null;
    start = Number(match[1]);
  }
  const end = start + size;
  return {
    items: items.slice(start, end),
    ...(end < items.length ? { nextCursor: `o${end}` } : {}),
  };
}

/** A list request's cursor, if it gave one. */
export function cursorOf(params: unknown): string | undefined {
  const cursor = (params as { cursor?: unknown } | undefined)?.cursor;
  if (cursor === undefined) return undefined;
  if (typeof cursor !== 'string') throw invalidParams('cursor must be a string');
  return cursor;
}
