import { type UpstreamConnection } from '../upstream/upstream-connection';
import { UpstreamFailure } from '../upstream/upstream-error';
import { cacheHintOf, declaresDirectoryRead, type UpstreamCacheHint } from './skill-manifest';

/** Bounds on what one upstream's `skills/list` may make a sync read. */
export const MAX_SKILL_PAGES = 100;
export const MAX_SKILLS = 5_000;
/**
 * All pages' skills together, as JSON text: what a sync holds of one upstream's listing (5,000
 * skills of a few hundred bytes each come to a few MiB; 100 pages of 30 MB took a replica's heap).
 */
export const MAX_SKILL_LIST_BYTES = 16 * 1024 * 1024;

/** An upstream's `skills/list` to its end, as it came: every entry is still untrusted. */
export interface UpstreamSkillListing {
  entries: unknown[];
  /** The first page's cache hint (SEP-2549), and when Portico read it. */
  hint: UpstreamCacheHint;
  /** Whether the upstream serves `resources/directory/read`. */
  directoryRead: boolean;
}

/**
 * Reads every page of an upstream's skills; the caller checks that it declares the extension.
 * Bounded in pages, entries and bytes, and a repeated cursor ends it with an error rather than a
 * loop.
 */
export async function listSkills(
  connection: UpstreamConnection,
  signal?: AbortSignal,
): Promise<UpstreamSkillListing> {
  const entries: unknown[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  let hint: UpstreamCacheHint | undefined;
  let bytes = 0;
  for (let page = 1; page <= MAX_SKILL_PAGES; page++) {
    const readAt = new Date();
    const result: Record<string, unknown> = await connection.request(
      'skills/list',
      cursor === undefined ? {} : { cursor },
      { signal },
    );
    hint ??= cacheHintOf(result, readAt);
    const { skills, nextCursor } = result;
    if (!Array.isArray(skills))
      throw new UpstreamFailure(
        'protocol',
        "the upstream's skills/list result has no skills array",
      );
    if (entries.length + skills.length > MAX_SKILLS)
      throw new UpstreamFailure('protocol', `the upstream lists more than ${MAX_SKILLS} skills`);
    bytes += JSON.stringify(skills).length;
    if (bytes > MAX_SKILL_LIST_BYTES)
      throw new UpstreamFailure(
        'protocol',
        `the upstream's skills come to more than ${MAX_SKILL_LIST_BYTES / 1024 / 1024} MiB`,
      );
    entries.push(...(skills as unknown[]));
    if (nextCursor === undefined || nextCursor === null || nextCursor === '')
      return {
        entries,
        hint,
        directoryRead: declaresDirectoryRead(connection.serverCapabilities),
      };
    if (typeof nextCursor !== 'string' || cursors.has(nextCursor))
      throw new UpstreamFailure('protocol', "the upstream's skills/list cursor would never end");
    cursors.add(nextCursor);
    cursor = nextCursor;
  }
  throw new UpstreamFailure(
    'protocol',
    `the upstream sent more than ${MAX_SKILL_PAGES} pages of skills`,
  );
}
