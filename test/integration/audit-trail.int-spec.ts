import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { AuditTrail } from '../../src/audit/audit-trail.service';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';

describe('the audit trail on the database', () => {
  let db: TestDataSource;

  beforeAll(async () => {
    db = await openTestDataSource();
  });

  afterAll(async () => {
    await db.close();
  });

  /** A trail whose next `lose` writes are carried out and then reported as failed. */
  function trailLosing(lose: number): AuditTrail {
    const dataSource = {
      query: async (sql: string, parameters: unknown[]) => {
        const result: unknown = await db.dataSource.query(sql, parameters);
        if (lose-- > 0) throw new Error('the connection dropped before the answer');
        return result;
      },
    } as unknown as DataSource;
    return new AuditTrail(
      dataSource,
      { audit: { arguments: 'full', flushIntervalMs: 1000, retentionDays: 0 } },
      { value: 'replica-1' },
    );
  }

  const rowsOf = async (gateway: string) =>
    db.dataSource.query<{ target: string; team_ids: string[]; arguments: unknown }[]>(
      'SELECT target, team_ids, arguments FROM audit_entry WHERE gateway = $1 ORDER BY target',
      [gateway],
    );

  /** The entries of one request, by action. */
  const entriesOf = async (requestId: string) =>
    db.dataSource.query<Record<string, unknown>[]>(
      'SELECT * FROM audit_entry WHERE request_id = $1 ORDER BY action',
      [requestId],
    );

  it('writes each entry once, its arrays and JSON as recorded, when a written batch was reported as failed', async () => {
    const gateway = `gateway-${randomUUID()}`;
    const trail = trailLosing(2);
    const team = randomUUID();
    const record = (target: string) =>
      trail.record({
        kind: 'mcp',
        action: 'tools/call',
        outcome: 'ok',
        gateway,
        target,
        teamIds: [team],
        arguments: { table: 'orders', limit: 3, nested: { deep: [1, 'two'] } },
      });
    record('a');
    record('b');
    await trail.flush(); // written, reported as failed
    record('c');
    await trail.flush(); // a, b and c written again, reported as failed again
    await trail.flush(); // written again: nothing twice
    record('d');
    await trail.flush(); // writes succeed again
    const rows = await rowsOf(gateway);
    expect(rows.map((row) => row.target)).toEqual(['a', 'b', 'c', 'd']);
    expect(rows[0]!.team_ids).toEqual([team]);
    expect(rows[0]!.arguments).toEqual({
      table: 'orders',
      limit: 3,
      nested: { deep: [1, 'two'] },
    });
  });

  it('stores what PostgreSQL refuses in text and JSON repaired, and an entry holding it holds back nothing', async () => {
    const trail = trailLosing(0);
    const requestId = randomUUID();
    const emoji = '\u{1F600}';
    trail.record({
      kind: 'login',
      action: 'login',
      outcome: 'denied',
      username: '\uD800x', // an unpaired surrogate, as a JSON body's "\ud800" gives
      clientName: 'a\u0000b',
      target: `${'t'.repeat(1023)}${emoji}`, // cut at 1024, between the halves of the pair
      detail: 'C:\\u0000\\dir \u0000', // a backslash and "u0000" is text, and stays
      arguments: { 'k\u0000': '\uDC00', path: 'C:\\u0000' },
      status: 1e12,
      requestId,
    });
    trail.record({ kind: 'mcp', action: 'tools/call', outcome: 'ok', requestId });
    await trail.flush();
    const [login, call] = await entriesOf(requestId);
    expect(call).toMatchObject({ action: 'tools/call', outcome: 'ok' });
    expect(login).toMatchObject({
      username: '\uFFFDx',
      client_name: 'ab',
      target: `${'t'.repeat(1023)}\uFFFD`,
      detail: 'C:\\u0000\\dir ',
      arguments: { k: '\uFFFD', path: 'C:\\u0000' },
      status: null,
    });
  });

  it('keeps an entry the database refuses for what it holds without its details, saying why, and the rest as recorded', async () => {
    const trail = trailLosing(0);
    const requestId = randomUUID();
    const before = { kind: 'mcp', outcome: 'ok', requestId } as const;
    trail.record({ ...before, action: 'a-before' });
    // No caller makes these; they stand for whatever else the database might refuse.
    trail.record({ ...before, action: 'b-refused', target: 'secret', teamIds: ['not-a-uuid'] });
    trail.record({ ...before, action: 'c-dropped', userId: 'not-a-uuid' });
    trail.record({ ...before, action: 'd-after' });
    await trail.flush();
    const entries = await db.dataSource.query<Record<string, unknown>[]>(
      'SELECT action, target, team_ids, detail FROM audit_entry WHERE request_id = $1 OR action = $2 ORDER BY action',
      [requestId, 'b-refused'],
    );
    expect(entries.map((entry) => entry.action)).toEqual(['a-before', 'b-refused', 'd-after']);
    expect(entries[1]).toMatchObject({ target: null, team_ids: [] });
    expect(entries[1]!.detail).toMatch(/^not stored as recorded: .*uuid/);
  });
});
