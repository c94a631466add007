import { type UpstreamConnection } from './upstream-connection';
import { isJsonObject } from '../common/json-value';
import { UpstreamFailure } from './upstream-error';

/** The paginated list methods of MCP and the member of their results that holds the items. */
export const LIST_METHODS = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
} as const;

export type ListMethod = keyof typeof LIST_METHODS;

/** Bounds on what one upstream may make a sync read; beyond them the sync fails and says why. */
export const MAX_LIST_PAGES = 10_000;
export const MAX_LIST_ITEMS = 100_000;
/** All pages of one list together, as JSON text: what a sync holds before it admits an item. */
export const MAX_LIST_BYTES = 64 * 1024 * 1024;

/**
 * Every item of a list, following `nextCursor`. Each item is still untrusted: the caller admits
 * them one by one, so that one bad entry does not fail the whole list.
 */
export async function listAll(
  connection: UpstreamConnection,
  method: ListMethod,
  signal?: AbortSignal,
): Promise<unknown[]> {
  const key = LIST_METHODS[method];
  const items: unknown[] = [];
  const cursors = new Set<string>();
  let bytes = 0;
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    if (page > MAX_LIST_PAGES)
      throw new UpstreamFailure(
        'protocol',
        `the upstream sent more than ${MAX_LIST_PAGES} pages of ${key}`,
      );
    const result = await connection.request(method, cursor === undefined ? {} : { cursor }, {
      signal,
    });
    const listed: unknown = (result as Record<string, unknown>)[key];
    const next: unknown = result.nextCursor;
    if (!Array.isArray(listed))
      throw new UpstreamFailure('protocol', `the upstream's ${method} result has no ${key} array`);
    if (next !== undefined && next !== null && typeof next !== 'string')
      throw new UpstreamFailure('protocol', `the upstream's ${method} cursor is not a string`);
    if (items.length + listed.length > MAX_LIST_ITEMS)
      throw new UpstreamFailure(
        'protocol',
        `the upstream lists more than ${MAX_LIST_ITEMS} ${key}`,
      );
    bytes += JSON.stringify(listed).length;
    if (bytes > MAX_LIST_BYTES)
      throw new UpstreamFailure(
        'protocol',
        `the upstream's ${key} come to more than ${MAX_LIST_BYTES / 1024 / 1024} MiB`,
      );
    for (const item of listed) items.push(item);
    // An empty cursor is a common way of saying "no more"; following it would loop.
    if (!next) return items;
    if (cursors.has(next))
      throw new UpstreamFailure(
        'protocol',
        'the upstream repeated a page cursor, which would never end',
      );
    cursors.add(next);
    cursor = next;
  }
}

/**
 * The `key` array of an upstream's `method` result, checked before anything maps it: objects,
 * each with a string `named` member where one is given. Anything else is the upstream's fault,
 * answered as a message Portico cannot use (-32012), not as Portico's own error.
 */
export function resultItems<T extends object>(
  result: unknown,
  method: string,
  key: string,
  named?: string,
): T[] {
  const items = (result as Record<string, unknown> | null)?.[key];
  if (
    !Array.isArray(items) ||
    !items.every(
      (item: unknown) =>
        isJsonObject(item) && (named === undefined || typeof item[named] === 'string'),
    )
  )
    throw new UpstreamFailure(
      'protocol',
      `the upstream's ${method} result has no ${key} array of objects${named ? ` with a ${named}` : ''}`,
    );
  return items as T[];
}
