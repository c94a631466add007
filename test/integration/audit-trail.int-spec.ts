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
});
