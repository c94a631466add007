import { type UpstreamConnection } from '../upstream/upstream-connection';
import { listSkills, MAX_SKILL_LIST_BYTES } from './skill-listing';

/** An upstream whose every `skills/list` page is `page(n)`, n counting from 0. */
const upstream = (page: (n: number) => Record<string, unknown>) => {
  let n = 0;
  return {
    serverCapabilities: {},
    request: () => Promise.resolve(page(n++)),
  } as unknown as UpstreamConnection;
};

describe('listSkills', () => {
  it('reads every page to the last', async () => {
    const listing = await listSkills(
      upstream((n) => ({
        skills: [{ name: `s${n}` }],
        ...(n < 2 ? { nextCursor: String(n + 1) } : {}),
      })),
    );
    expect(listing.entries).toEqual([{ name: 's0' }, { name: 's1' }, { name: 's2' }]);
  });

  it('stops once the pages together pass the byte bound, each page within the message limit', async () => {
    const junk = 'x'.repeat(4 * 1024 * 1024);
    let pages = 0;
    await expect(
      listSkills(
        upstream((n) => {
          pages = n + 1;
          return { skills: [{ name: `s${n}`, junk }], nextCursor: String(n + 1) };
        }),
      ),
    ).rejects.toThrow(`more than ${MAX_SKILL_LIST_BYTES / 1024 / 1024} MiB`);
    expect(pages).toBe(4);
  });
});
