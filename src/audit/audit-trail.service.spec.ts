import { isUUID } from 'class-validator';
import { type DataSource } from 'typeorm';
import { AuditTrail, entryId } from './audit-trail.service';

/** A database whose inserts wait until the test lets them finish, and that counts their rows. */
function slowDatabase() {
  const statements: { rows: number; done: () => void }[] = [];
  const dataSource = {
    query: (_sql: string, [json]: [string]) =>
      new Promise<void>((resolve) => {
        statements.push({ rows: (JSON.parse(json) as unknown[]).length, done: resolve });
      }),
  } as unknown as DataSource;
  const trail = new AuditTrail(
    dataSource,
    { audit: { arguments: 'digest', flushIntervalMs: 1000, retentionDays: 0 } },
    { value: 'replica-1' },
  );
  let finished = 0;
  return {
    trail,
    /** The rows of each statement sent so far. */
    rows: () => statements.map((statement) => statement.rows),
    /** Lets the next statement finish, once it has been sent. */
    finishNext: async () => {
      await settled();
      statements[finished++]!.done();
    },
  };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

function record(trail: AuditTrail, count: number): void {
  for (let i = 0; i < count; i++)
    trail.record({ kind: 'mcp', action: 'tools/call', outcome: 'ok' });
}

describe('AuditTrail', () => {
  it('writes what was buffered when the write began; entries recorded meanwhile wait for the next', async () => {
    const { trail, rows, finishNext } = slowDatabase();
    record(trail, 3);
    const first = trail.flush();
    await settled();
    record(trail, 2);
    await finishNext();
    await first;
    expect(rows()).toEqual([3]);

    const second = trail.flush();
    await finishNext();
    await second;
    expect(rows()).toEqual([3, 2]);
  });

  it('a flush asked for during a write writes every entry recorded before it was asked for', async () => {
    const { trail, rows, finishNext } = slowDatabase();
    record(trail, 1);
    const first = trail.flush();
    await settled();
    record(trail, 4);
    const second = trail.flush();
    await finishNext();
    await first;
    await finishNext();
    await second;
    expect(rows()).toEqual([1, 4]);
  });

  it('writes a large buffer in batches of 200, and only once', async () => {
    const { trail, rows, finishNext } = slowDatabase();
    record(trail, 450);
    const flushed = trail.flush();
    for (let i = 0; i < 3; i++) await finishNext();
    await flushed;
    expect(rows()).toEqual([200, 200, 50]);
    await trail.flush();
    expect(rows()).toHaveLength(3);
  });
});

describe('entryId', () => {
  it('is a version 7 UUID of the RFC 9562 variant, its first 48 bits the time in milliseconds', () => {
    const now = Date.UTC(2026, 11, 1, 12, 0, 0, 123);
    const id = entryId(now);
    expect(isUUID(id, 7)).toBe(true);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
  });

  it('sorts by time, and ids of the same millisecond differ', () => {
    const earlier = entryId(1_000);
    const later = entryId(1_001);
    expect(earlier < later).toBe(true);
    const same = new Set(Array.from({ length: 1000 }, () => entryId(5_000)));
    expect(same.size).toBe(1000);
  });
});
