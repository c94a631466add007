import { type MigrationInterface, type QueryRunner } from 'typeorm';
import { type LegacyToolRule, policiesOfToolRules } from '../src/policies/legacy-tool-rules';

/**
 * Policies (CEL expressions) replace tool allow/deny rules. The rules become policies with the
 * same meaning (see legacy-tool-rules.ts), and their table goes. `down` drops the policies and
 * gives back an empty `tool_rule` table: what policies say cannot, in general, be rules.
 */
export class Policies1795700000000 implements MigrationInterface {
  name = 'Policies1795700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "policy" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(200) NOT NULL, "description" text NOT NULL DEFAULT '', "expression" text NOT NULL, "effect" character varying(8) NOT NULL, "priority" integer NOT NULL DEFAULT '0', "server_id" uuid, "enabled" boolean NOT NULL DEFAULT true, "approval" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "policy_pk" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query('CREATE UNIQUE INDEX "policy_name_uq" ON "policy" ("name") ');
    await queryRunner.query('CREATE INDEX "policy_server_idx" ON "policy" ("server_id") ');
    await queryRunner.query(
      'ALTER TABLE "policy" ADD CONSTRAINT "policy_server_fk" FOREIGN KEY ("server_id") REFERENCES "server"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );

    // Names use '-' between gateway and tool whatever the separator: they are only names.
    const rules = (await queryRunner.query(
      `SELECT r.tool_id AS "toolId", t.gateway_slug || '-' || t.original_name AS "toolName",
                r.server_id AS "serverId", r.effect, r.team_id AS "teamId", r.role,
                m.name AS "teamName", s.name AS "serverName"
         FROM tool_rule r JOIN tool t ON t.id = r.tool_id
         LEFT JOIN team m ON m.id = r.team_id LEFT JOIN server s ON s.id = r.server_id
         ORDER BY r.created_at, r.id`,
    )) as (LegacyToolRule & { teamName: string | null; serverName: string | null })[];
    const teams = new Map(rules.map((rule) => [rule.teamId, rule.teamName]));
    const servers = new Map(rules.map((rule) => [rule.serverId, rule.serverName]));
    const policies = policiesOfToolRules(rules, {
      team: (id) => teams.get(id) ?? id,
      server: (id) => servers.get(id) ?? id,
    });
    for (const policy of policies)
      await queryRunner.query(
        `INSERT INTO "policy" ("name", "description", "expression", "effect", "priority", "server_id")
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          policy.name,
          policy.description,
          policy.expression,
          policy.effect,
          policy.priority,
          policy.serverId,
        ],
      );

    await queryRunner.query('DROP TABLE "tool_rule"');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "tool_rule" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tool_id" uuid NOT NULL, "server_id" uuid, "effect" character varying(8) NOT NULL, "team_id" uuid, "role" character varying(16), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "tool_rule_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query('CREATE INDEX "tool_rule_team_idx" ON "tool_rule" ("team_id") ');
    await queryRunner.query('CREATE INDEX "tool_rule_server_idx" ON "tool_rule" ("server_id") ');
    await queryRunner.query('CREATE INDEX "tool_rule_tool_idx" ON "tool_rule" ("tool_id") ');
    await queryRunner.query(
      'ALTER TABLE "tool_rule" ADD CONSTRAINT "tool_rule_tool_fk" FOREIGN KEY ("tool_id") REFERENCES "tool"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "tool_rule" ADD CONSTRAINT "tool_rule_server_fk" FOREIGN KEY ("server_id") REFERENCES "server"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "tool_rule" ADD CONSTRAINT "tool_rule_team_fk" FOREIGN KEY ("team_id") REFERENCES "team"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query('ALTER TABLE "policy" DROP CONSTRAINT "policy_server_fk"');
    await queryRunner.query('DROP INDEX "public"."policy_server_idx"');
    await queryRunner.query('DROP INDEX "public"."policy_name_uq"');
    await queryRunner.query('DROP TABLE "policy"');
  }
}
