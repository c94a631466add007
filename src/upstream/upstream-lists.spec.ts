import { type UpstreamConnection } from './upstream-connection';
import { listAll, MAX_LIST_BYTES } from './upstream-lists';

/** An upstream whose pages never end, each `bytes` long: a list it would take without a bound. */
function endlessPages(bytes: number): { connection: UpstreamConnection; asked: () => number } {
  let asked = 0;
  const connection = {
    request: async () => {
      asked += 1;
      return {
        tools: [{ name: `t${asked}`, description: 'x'.repeat(bytes) }],
        nextCursor: String(asked),
      };
    },
  } as unknown as UpstreamConnection;
  return { connection, asked: () => asked };
}

describe('listAll', () => {
  it('stops reading a list whose pages together pass its bound in bytes', async () => {
    const page = 4 * 1024 * 1024;
    const { connection, asked } = endlessPages(page);
    await expect(listAll(connection, 'tools/list')).rejects.toThrow(
      `the upstream's tools come to more than ${MAX_LIST_BYTES / 1024 / 1024} MiB`,
    );
    expect(asked()).toBeLessThanOrEqual(MAX_LIST_BYTES / page + 1);
  });
});
