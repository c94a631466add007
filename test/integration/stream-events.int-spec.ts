import { McpSession } from '../../src/mcp/state/mcp-session.entity';
import {
  SESSION_EVENT_BYTES_KEPT,
  SESSION_EVENTS_KEPT,
  SESSION_STREAM,
  type StoredEvent,
  StreamEvents,
} from '../../src/mcp/sessions/stream-events.store';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';
import { waitFor } from '../support/wait-for';

async function pages(replay: AsyncIterable<StoredEvent[]>): Promise<StoredEvent[][]> {
  const read: StoredEvent[][] = [];
  for await (const page of replay) read.push(page);
  return read;
}

const all = async (replay: AsyncIterable<StoredEvent[]>) => (await pages(replay)).flat();

describe('the stream events a session keeps for resumption', () => {
  let db: TestDataSource;
  let events: StreamEvents;

  beforeAll(async () => {
    db = await openTestDataSource();
    events = new StreamEvents(db.dataSource);
    for (const id of ['chatty', 'quiet', 'loud'])
      await db.dataSource.getRepository(McpSession).insert({
        id,
        subject: 'user:1',
        protocolVersion: '2025-11-25',
        lastSeenAt: new Date(),
      });
  });

  afterAll(async () => {
    await db.close();
  });

  const kept = async (sessionId: string): Promise<number> =>
    (
      await db.dataSource.query<{ count: number }[]>(
        'SELECT count(*)::int AS count FROM mcp_stream_event WHERE session_id = $1',
        [sessionId],
      )
    )[0]!.count;

  it('are its newest ones, however many an upstream sends, and no other session loses any', async () => {
    const message = { jsonrpc: '2.0' as const, method: 'notifications/message', params: {} };
    await events.append('quiet', SESSION_STREAM, message);
    // What a flood left before: far more than a session keeps.
    await db.dataSource.query(
      `INSERT INTO mcp_stream_event (session_id, stream_id, message)
       SELECT 'chatty', 'get', '{"jsonrpc":"2.0","method":"notifications/message"}'::jsonb
       FROM generate_series(1, $1::int)`,
      [2 * SESSION_EVENTS_KEPT],
    );
    let last = '';
    for (let sent = 0; sent < 500; sent++)
      last = await events.append('chatty', SESSION_STREAM, message);
    await waitFor(async () => (await kept('chatty')) === SESSION_EVENTS_KEPT, 'the trim');
    expect(await kept('quiet')).toBe(1);
    // The newest is among them, and a client resuming just before it gets it.
    const replay = await all(
      events.after('chatty', {
        streamId: SESSION_STREAM,
        after: String(BigInt(last.split('.')[1]!) - 1n),
      }),
    );
    expect(replay.map((event) => event.eventId)).toEqual([last]);
  });

  it('are at most SESSION_EVENT_BYTES_KEPT of its newest, however large an upstream sends them', async () => {
    const mib = 1024 * 1024;
    // What a flood of large messages left before: far more bytes than a session keeps.
    await db.dataSource.query(
      `INSERT INTO mcp_stream_event (session_id, stream_id, message, bytes)
       SELECT 'loud', 'get', jsonb_build_object('jsonrpc', '2.0', 'method', 'notifications/message',
         'params', jsonb_build_object('data', repeat('x', $1::int))), $1::int + 60
       FROM generate_series(1, $2::int)`,
      [mib, (2 * SESSION_EVENT_BYTES_KEPT) / mib],
    );
    const large = (size: number) => ({
      jsonrpc: '2.0' as const,
      method: 'notifications/message',
      params: { level: 'info', data: 'x'.repeat(size) },
    });
    for (let sent = 0; sent < 8; sent++) await events.append('loud', SESSION_STREAM, large(mib));
    const bytes = async () =>
      (
        await db.dataSource.query<{ bytes: number }[]>(
          `SELECT coalesce(sum(bytes), 0)::int AS bytes FROM mcp_stream_event WHERE session_id = 'loud'`,
        )
      )[0]!.bytes;
    await waitFor(async () => (await bytes()) <= SESSION_EVENT_BYTES_KEPT, 'the trim');
    expect(await bytes()).toBeGreaterThan(SESSION_EVENT_BYTES_KEPT - 2 * mib);
    // A message past TRIM_EVERY_BYTES on its own trims at once, and is the last a client replays.
    const before = await kept('loud');
    const huge = await events.append('loud', SESSION_STREAM, large(9 * mib));
    await waitFor(async () => (await kept('loud')) < before, 'the trim after one large message');
    expect(await bytes()).toBeLessThanOrEqual(SESSION_EVENT_BYTES_KEPT);
    const replay = await all(events.after('loud', { streamId: SESSION_STREAM, after: '0' }));
    expect(replay.at(-1)!.eventId).toBe(huge);
    expect(await kept('quiet')).toBeGreaterThanOrEqual(1);
  });

  it('are replayed a few MiB at a time, in order, however large they are', async () => {
    const big = 'x'.repeat(1024 * 1024);
    const ids: string[] = [];
    for (let n = 0; n < 20; n++)
      ids.push(
        await events.append('quiet', 'aaaaaaaaaaaaaaaa', {
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'info', data: { n, big } },
        }),
      );
    const read = await pages(events.after('quiet', { streamId: 'aaaaaaaaaaaaaaaa', after: '0' }));
    expect(read.flat().map((event) => event.eventId)).toEqual(ids);
    // 20 MiB come in pages of at most 8 MiB: never all at once.
    expect(read.length).toBeGreaterThanOrEqual(3);
    for (const page of read) expect(JSON.stringify(page).length).toBeLessThan(9 * 1024 * 1024);
  });

  it('keep, repaired, a message with what PostgreSQL cannot store, so that it can be resumed too', async () => {
    const stream = 'bbbbbbbbbbbbbbbb';
    const eventId = await events.append('quiet', stream, {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: { ['k\u0000']: 'a\u0000b \ud800' } },
    });
    expect(await all(events.after('quiet', { streamId: stream, after: '0' }))).toEqual([
      {
        eventId,
        message: {
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'info', data: { k: 'ab \uFFFD' } },
        },
      },
    ]);
  });
});
