import { type DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { OnePromotionStore1795915000000 } from '../../migrations/1795915000000-OnePromotionStore';
import { InProcessEventBus } from '../../src/events/in-process-event-bus';
import { type RequestOwner } from '../../src/mcp/protocol/mcp-request';
import { PromotionStore } from '../../src/mcp/search/promotion-store';
import { migrationDatabase } from '../support/migration-database';

const SERVER = '00000000-0000-4000-8000-0000000000c1';
/** The migrations up to this one: later ones are not what this spec is about. */
const THROUGH = MIGRATIONS.slice(0, MIGRATIONS.indexOf(OnePromotionStore1795915000000) + 1);
const BEFORE = THROUGH.slice(0, -1);

const session = (sessionId: string): RequestOwner => ({ kind: 'session', sessionId });
const ALICE: RequestOwner = {
  kind: 'principal',
  scope: { kind: 'server', serverId: SERVER },
  subject: 'user:alice',
};
/** A subject with the separator in it, in the scope of every tool. */
const ROBOT: RequestOwner = { kind: 'principal', scope: { kind: 'all' }, subject: 'token:ci:7' };

describe('the one-promotion-store migration on a database with promotions in both places', () => {
  const { open, run } = migrationDatabase();

  /** Every owner's promotions as the store reads them, fresh from the database. */
  async function read(db: DataSource, owners: RequestOwner[]) {
    const store = new PromotionStore(db, new InProcessEventBus());
    return Promise.all(owners.map((owner) => store.promotions(owner, true)));
  }

  const columns = async (db: DataSource, table: string) =>
    (
      await db.query<{ column_name: string }[]>(
        `SELECT column_name FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = $1 ORDER BY column_name`,
        [table],
      )
    ).map((row) => row.column_name);

  it("moves every session's promotions and every principal's into the one store", async () => {
    await run(BEFORE, async (db) => {
      await db.query(`INSERT INTO server (id, name) VALUES ($1, 'One')`, [SERVER]);
      const sessions: [string, string | null, string | null][] = [
        ['s-promoted', SERVER, '{"catalogHash": "h1", "names": ["x", "y"]}'],
        ['s-everywhere', null, '{"catalogHash": "h2", "names": ["z"]}'],
        ['s-none', SERVER, null],
        ['s-malformed', null, '{"names": 3}'],
      ];
      for (const [id, serverId, promotions] of sessions)
        await db.query(
          `INSERT INTO mcp_session (id, server_id, subject, protocol_version, last_seen_at, promotions)
           VALUES ($1, $2, 'admin', '2025-11-25', now(), $3)`,
          [id, serverId, promotions],
        );
      await db.query(
        `INSERT INTO mcp_promotion (scope, subject, catalog_hash, names)
         VALUES ($1, 'user:alice', 'h1', '["a"]'), ('all', 'token:ci:7', 'h3', '["b", "c"]')`,
        [`server:${SERVER}`],
      );
    });

    await run(THROUGH, async (db) => {
      expect(await columns(db, 'mcp_session')).not.toContain('promotions');
      const owners = ['s-promoted', 's-everywhere', 's-none', 's-malformed'].map(session);
      expect(await read(db, [...owners, ALICE, ROBOT])).toEqual([
        { catalogHash: 'h1', names: ['x', 'y'] },
        { catalogHash: 'h2', names: ['z'] },
        null,
        null,
        { catalogHash: 'h1', names: ['a'] },
        { catalogHash: 'h3', names: ['b', 'c'] },
      ]);
      expect(await db.query(`SELECT owner, session_id FROM mcp_promotion ORDER BY owner`)).toEqual([
        { owner: 'principal:all:token:ci:7', session_id: null },
        { owner: `principal:server:${SERVER}:user:alice`, session_id: null },
        { owner: 'session:s-everywhere', session_id: 's-everywhere' },
        { owner: 'session:s-promoted', session_id: 's-promoted' },
      ]);

      // A moved session's promotions still go with the session.
      await db.query(`DELETE FROM mcp_session WHERE id = 's-promoted'`);
      expect(await read(db, [session('s-promoted')])).toEqual([null]);
    });
  });

  it('puts them back where they were when undone, and moves them again when redone', async () => {
    const dataSource = await open(THROUGH);
    try {
      await dataSource.undoLastMigration({ transaction: 'all' });
      expect(await columns(dataSource, 'mcp_promotion')).toEqual([
        'catalog_hash',
        'names',
        'scope',
        'subject',
        'updated_at',
      ]);
      expect(
        await dataSource.query(
          `SELECT scope, subject, catalog_hash, names FROM mcp_promotion ORDER BY scope`,
        ),
      ).toEqual([
        { scope: 'all', subject: 'token:ci:7', catalog_hash: 'h3', names: ['b', 'c'] },
        { scope: `server:${SERVER}`, subject: 'user:alice', catalog_hash: 'h1', names: ['a'] },
      ]);
      expect(
        await dataSource.query(
          `SELECT id, promotions FROM mcp_session WHERE promotions IS NOT NULL ORDER BY id`,
        ),
      ).toEqual([{ id: 's-everywhere', promotions: { catalogHash: 'h2', names: ['z'] } }]);

      await dataSource.runMigrations({ transaction: 'all' });
      expect(
        await read(dataSource, [session('s-everywhere'), session('s-none'), ALICE, ROBOT]),
      ).toEqual([
        { catalogHash: 'h2', names: ['z'] },
        null,
        { catalogHash: 'h1', names: ['a'] },
        { catalogHash: 'h3', names: ['b', 'c'] },
      ]);
    } finally {
      await dataSource.destroy();
    }
  });
});
