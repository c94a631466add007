import { policyTool } from '../support/policy-tools';
import { MIGRATIONS } from '../../migrations';
import { Policies1795700000000 } from '../../migrations/1795700000000-Policies';
import { type Principal } from '../../src/auth/principal';
import { ROLES } from '../../src/common/roles';
import { type EventBus } from '../../src/events/event-bus';
import { Metrics } from '../../src/observability/metrics';
import { ScopePolicies } from '../../src/policies/scope-policies';
import { legacyAllows, type LegacyRule } from '../support/legacy-tool-policy';
import { migrationDatabase } from '../support/migration-database';

const GATEWAY = '00000000-0000-4000-8000-0000000000a1';
const RED = '00000000-0000-4000-8000-0000000000b1';
const BLUE = '00000000-0000-4000-8000-0000000000b2';
const S1 = '00000000-0000-4000-8000-0000000000c1';
const S2 = '00000000-0000-4000-8000-0000000000c2';
const tool = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

/** Tool rules of every shape: by team, role, both, neither; global and per server; allow and deny. */
const RULES: (LegacyRule & { serverId: string | null })[] = [
  { toolId: tool(1), serverId: null, effect: 'deny', teamId: RED, role: null },
  { toolId: tool(2), serverId: null, effect: 'allow', teamId: null, role: 'admin' },
  { toolId: tool(2), serverId: S1, effect: 'allow', teamId: BLUE, role: null },
  { toolId: tool(3), serverId: S1, effect: 'deny', teamId: null, role: 'member' },
  { toolId: tool(3), serverId: null, effect: 'allow', teamId: RED, role: null },
  { toolId: tool(3), serverId: null, effect: 'allow', teamId: BLUE, role: 'operator' },
  { toolId: tool(5), serverId: null, effect: 'allow', teamId: null, role: null },
  { toolId: tool(5), serverId: null, effect: 'deny', teamId: RED, role: 'admin' },
  { toolId: tool(6), serverId: S2, effect: 'allow', teamId: RED, role: null },
  { toolId: tool(7), serverId: S1, effect: 'deny', teamId: null, role: null },
  { toolId: tool(7), serverId: S2, effect: 'deny', teamId: BLUE, role: null },
  { toolId: tool(7), serverId: S2, effect: 'allow', teamId: RED, role: 'member' },
];
const TOOLS = [1, 2, 3, 4, 5, 6, 7].map(tool);
/** The migrations up to this one: later ones are not what this spec is about. */
const THROUGH_POLICIES = MIGRATIONS.slice(0, MIGRATIONS.indexOf(Policies1795700000000) + 1);

describe('the policies migration on a database with tool rules', () => {
  const { open, run } = migrationDatabase();

  it('gives every principal the same tools on every endpoint as the rules did', async () => {
    const before = MIGRATIONS.slice(0, MIGRATIONS.indexOf(Policies1795700000000));
    await run(before, async (db) => {
      await db.query(
        `INSERT INTO gateway (id, name, slug, url) VALUES ($1, 'Files', 'fs', 'http://127.0.0.1:9/fs')`,
        [GATEWAY],
      );
      for (const [index, id] of TOOLS.entries())
        await db.query(
          `INSERT INTO tool (id, gateway_id, original_name, gateway_slug, input_schema, tool_hash, content_hash)
           VALUES ($1, $2, $3, 'fs', '{}', $4, 'h')`,
          [id, GATEWAY, `tool_${index + 1}`, `abcdefabcde${index + 1}`],
        );
      await db.query(`INSERT INTO team (id, name) VALUES ($1, 'red'), ($2, 'blue')`, [RED, BLUE]);
      await db.query(`INSERT INTO server (id, name) VALUES ($1, 'One'), ($2, 'Two')`, [S1, S2]);
      for (const [index, rule] of RULES.entries())
        await db.query(
          `INSERT INTO tool_rule (tool_id, server_id, effect, team_id, role, created_at)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [rule.toolId, rule.serverId, rule.effect, rule.teamId, rule.role, new Date(1e12 + index)],
        );
    });

    await run(THROUGH_POLICIES, async (db) => {
      expect(await db.query(`SELECT to_regclass('tool_rule') IS NULL AS gone`)).toEqual([
        { gone: true },
      ]);
      const names = await db.query<{ name: string }[]>(`SELECT name FROM policy ORDER BY name`);
      expect(names.map((row) => row.name)).toEqual([
        'rule-fs-tool_1-deny-1',
        'rule-fs-tool_2-allow-1',
        'rule-fs-tool_2-allow-2',
        'rule-fs-tool_2-others-denied-1',
        'rule-fs-tool_2-others-denied-2',
        'rule-fs-tool_3-allow-1',
        'rule-fs-tool_3-deny-1',
        'rule-fs-tool_3-others-denied-1',
        'rule-fs-tool_5-allow-1',
        'rule-fs-tool_5-deny-1',
        'rule-fs-tool_5-others-denied-1',
        'rule-fs-tool_6-allow-1',
        'rule-fs-tool_6-others-denied-1',
        'rule-fs-tool_7-allow-1',
        'rule-fs-tool_7-deny-1',
        'rule-fs-tool_7-deny-2',
        'rule-fs-tool_7-others-denied-1',
      ]);
      const [described] = await db.query<{ description: string; expression: string }[]>(
        `SELECT description, expression FROM policy WHERE name = 'rule-fs-tool_5-deny-1'`,
      );
      expect(described).toEqual({
        description:
          "Converted from a tool rule: fs-tool_5 is denied everywhere to team 'red' with role admin.",
        expression: `tool.id == "${tool(5)}" && "${RED}" in principal.teamIds && principal.role == "admin"`,
      });

      const scopes = new ScopePolicies(db, undefined as unknown as EventBus, new Metrics());
      const teamSets = [[], [RED], [BLUE], [RED, BLUE]];
      let compared = 0;
      for (const serverId of [null, S1, S2]) {
        const set = await scopes.load(serverId);
        const rules = RULES.filter((rule) => rule.serverId === null || rule.serverId === serverId);
        for (const role of ROLES)
          for (const teamIds of teamSets) {
            const who: Principal = {
              subject: `user:${role}`,
              name: role,
              userId: null,
              role,
              teamIds,
              serverIds: null,
              audience: null,
              tokenId: null,
              source: 'session',
            };
            for (const [index, id] of TOOLS.entries()) {
              const target = policyTool(`fs-tool_${index + 1}`, {
                id,
                originalName: `tool_${index + 1}`,
                gatewaySlug: 'fs',
              });
              const allowed = legacyAllows(rules, who, id);
              const scope = `${serverId ?? '/mcp'} ${role} [${teamIds.join(',')}] tool ${index + 1}`;
              expect(`${scope}: ${set.decide(who, target, {}, new Date()).effect}`).toBe(
                `${scope}: ${allowed ? 'allow' : 'deny'}`,
              );
              expect(`${scope}: ${set.listed(who, target)}`).toBe(`${scope}: ${allowed}`);
              compared += 1;
            }
          }
      }
      expect(compared).toBe(3 * ROLES.length * teamSets.length * TOOLS.length);
    });
  });

  it('gives back an empty tool_rule table when undone', async () => {
    const dataSource = await open(THROUGH_POLICIES);
    try {
      await dataSource.undoLastMigration({ transaction: 'all' });
      expect(await dataSource.query(`SELECT count(*)::int AS n FROM tool_rule`)).toEqual([
        { n: 0 },
      ]);
      expect(await dataSource.query(`SELECT to_regclass('policy') IS NULL AS gone`)).toEqual([
        { gone: true },
      ]);
      await dataSource.runMigrations({ transaction: 'all' });
      expect(await dataSource.query(`SELECT count(*)::int AS n FROM policy`)).toEqual([{ n: 0 }]);
    } finally {
      await dataSource.destroy();
    }
  });
});
