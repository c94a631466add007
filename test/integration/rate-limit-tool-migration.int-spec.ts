import { MIGRATIONS } from '../../migrations';
import { RateLimitToolIdentity1797100000000 } from '../../migrations/1797100000000-RateLimitToolIdentity';
import { migrationDatabase } from '../support/migration-database';

const GATEWAY = '00000000-0000-4000-8000-000000000001';
const TOOL = '00000000-0000-4000-8000-000000000002';

describe('the migration that names a rate limit’s tool by gateway and upstream name', () => {
  const { run } = migrationDatabase();

  it('keeps every limit, a tool’s one on that tool, which then outlives its row but not its gateway', async () => {
    const before = MIGRATIONS.slice(0, MIGRATIONS.indexOf(RateLimitToolIdentity1797100000000));
    expect(before.length).toBeGreaterThan(0);
    await run(before, async (db) => {
      await db.query(
        `INSERT INTO gateway (id, name, slug, url) VALUES ($1, 'Kept', 'kept', 'http://127.0.0.1:9/kept')`,
        [GATEWAY],
      );
      await db.query(
        `INSERT INTO tool (id, gateway_id, original_name, gateway_slug, input_schema, tool_hash, content_hash)
         VALUES ($1, $2, 'echo', 'kept', '{}', 'abcdefabcdef', 'h')`,
        [TOOL, GATEWAY],
      );
      await db.query(
        `INSERT INTO rate_limit (per, tool_id, points, window_seconds)
         VALUES ('token', $1, 2, 60), ('user', NULL, 100, 3600)`,
        [TOOL],
      );
    });
    await run(MIGRATIONS, async (db) => {
      const limits = () =>
        db.query<{ per: string; gatewayId: string | null; toolName: string | null }[]>(
          `SELECT per, gateway_id AS "gatewayId", tool_name AS "toolName", points
           FROM rate_limit ORDER BY per`,
        );
      expect(await limits()).toEqual([
        { per: 'token', gatewayId: GATEWAY, toolName: 'echo', points: 2 },
        { per: 'user', gatewayId: null, toolName: null, points: 100 },
      ]);
      await db.query('DELETE FROM tool WHERE id = $1', [TOOL]);
      expect(await limits()).toHaveLength(2);
      await db.query('DELETE FROM gateway WHERE id = $1', [GATEWAY]);
      expect(await limits()).toEqual([
        { per: 'user', gatewayId: null, toolName: null, points: 100 },
      ]);
    });
  });
});
