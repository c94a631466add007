import { MIGRATIONS } from '../../migrations';
import { Identity1795470000000 } from '../../migrations/1795470000000-Identity';
import { verifyPassword } from '../../src/auth/password-hash';
import { migrationDatabase } from '../support/migration-database';

/** A wave-1 password hash (Node's default scrypt, no parameters stored) of 'wave-one-password'. */
const WAVE_ONE_HASH =
  'scrypt$mlKPzz/dAoZUQOlVMRHakA==$bQNERZkImijqoPW5PWb24kaioLkNqVHXfbb+BwF7M30=';

describe('the identity migration on a wave-1 database', () => {
  const { run } = migrationDatabase();

  it('keeps the admin account, gateways, tools and servers, all global', async () => {
    const waveOne = MIGRATIONS.slice(0, MIGRATIONS.indexOf(Identity1795470000000));
    // Every migration before Identity: wave 1. Later migrations run after it below.
    expect(MIGRATIONS).toContain(Identity1795470000000);
    expect(waveOne.length).toBeGreaterThan(0);
    await run(waveOne, async (db) => {
      await db.query(
        `INSERT INTO admin_user (username, password_hash, created_at) VALUES ('admin', $1, '2025-01-02T03:04:05Z')`,
        [WAVE_ONE_HASH],
      );
      await db.query(
        `INSERT INTO gateway (id, name, slug, url) VALUES ('00000000-0000-4000-8000-000000000001', 'Kept', 'kept', 'http://127.0.0.1:9/kept')`,
      );
      await db.query(
        `INSERT INTO tool (id, gateway_id, original_name, gateway_slug, input_schema, tool_hash, content_hash)
         VALUES ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001', 'echo', 'kept', '{}', 'abcdefabcdef', 'h')`,
      );
      await db.query(
        `INSERT INTO server (id, name) VALUES ('00000000-0000-4000-8000-000000000003', 'Kept server')`,
      );
      await db.query(
        `INSERT INTO server_tool (server_id, tool_id) VALUES ('00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000002')`,
      );
    });

    await run(MIGRATIONS, async (db) => {
      const users = await db.query(
        `SELECT username, password_hash, role, source, disabled, created_at FROM app_user`,
      );
      expect(users).toEqual([
        {
          username: 'admin',
          password_hash: WAVE_ONE_HASH,
          role: 'admin',
          source: 'local',
          disabled: false,
          created_at: new Date('2025-01-02T03:04:05Z'),
        },
      ]);
      expect(await verifyPassword('wave-one-password', users[0].password_hash)).toBe(true);
      expect(await db.query(`SELECT name, team_id FROM gateway`)).toEqual([
        { name: 'Kept', team_id: null },
      ]);
      expect(await db.query(`SELECT name, team_id FROM server`)).toEqual([
        { name: 'Kept server', team_id: null },
      ]);
      expect(await db.query(`SELECT count(*)::int AS n FROM server_tool`)).toEqual([{ n: 1 }]);
      expect(await db.query(`SELECT to_regclass('admin_user') IS NULL AS gone`)).toEqual([
        { gone: true },
      ]);
    });
  });
});
