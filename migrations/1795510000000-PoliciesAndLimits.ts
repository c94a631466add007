import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class PoliciesAndLimits1795510000000 implements MigrationInterface {
  name = 'PoliciesAndLimits1795510000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "server_tool_override" ("server_id" uuid NOT NULL, "tool_id" uuid NOT NULL, "name" character varying(128), "title" character varying(256), "description" text, "annotations" jsonb, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "server_tool_override_pk" PRIMARY KEY ("server_id", "tool_id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "server_tool_override_tool_idx" ON "server_tool_override" ("tool_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "tool_rule" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tool_id" uuid NOT NULL, "server_id" uuid, "effect" character varying(8) NOT NULL, "team_id" uuid, "role" character varying(16), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "tool_rule_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query('CREATE INDEX "tool_rule_team_idx" ON "tool_rule" ("team_id") ');
    await queryRunner.query('CREATE INDEX "tool_rule_server_idx" ON "tool_rule" ("server_id") ');
    await queryRunner.query('CREATE INDEX "tool_rule_tool_idx" ON "tool_rule" ("tool_id") ');
    await queryRunner.query(
      'CREATE TABLE "rate_limit" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "per" character varying(8) NOT NULL, "server_id" uuid, "tool_id" uuid, "points" integer NOT NULL, "window_seconds" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "rate_limit_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query('CREATE INDEX "rate_limit_tool_idx" ON "rate_limit" ("tool_id") ');
    await queryRunner.query('CREATE INDEX "rate_limit_server_idx" ON "rate_limit" ("server_id") ');
    await queryRunner.query(
      'CREATE TABLE "rate_limit_counter" ("key" character varying(255) NOT NULL, "points" integer NOT NULL DEFAULT \'0\', "expire" bigint, CONSTRAINT "rate_limit_counter_pk" PRIMARY KEY ("key"))',
    );
    await queryRunner.query('ALTER TABLE "server" ADD "hooks" jsonb NOT NULL DEFAULT \'[]\'');
    await queryRunner.query(
      'ALTER TABLE "server_tool_override" ADD CONSTRAINT "server_tool_override_server_fk" FOREIGN KEY ("server_id") REFERENCES "server"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "server_tool_override" ADD CONSTRAINT "server_tool_override_tool_fk" FOREIGN KEY ("tool_id") REFERENCES "tool"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "tool_rule" ADD CONSTRAINT "tool_rule_tool_fk" FOREIGN KEY ("tool_id") REFERENCES "tool"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "tool_rule" ADD CONSTRAINT "tool_rule_server_fk" FOREIGN KEY ("server_id") REFERENCES "server"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "tool_rule" ADD CONSTRAINT "tool_rule_team_fk" FOREIGN KEY ("team_id") REFERENCES "team"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "rate_limit" ADD CONSTRAINT "rate_limit_server_fk" FOREIGN KEY ("server_id") REFERENCES "server"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "rate_limit" ADD CONSTRAINT "rate_limit_tool_fk" FOREIGN KEY ("tool_id") REFERENCES "tool"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "rate_limit" DROP CONSTRAINT "rate_limit_tool_fk"');
    await queryRunner.query('ALTER TABLE "rate_limit" DROP CONSTRAINT "rate_limit_server_fk"');
    await queryRunner.query('ALTER TABLE "tool_rule" DROP CONSTRAINT "tool_rule_team_fk"');
    await queryRunner.query('ALTER TABLE "tool_rule" DROP CONSTRAINT "tool_rule_server_fk"');
    await queryRunner.query('ALTER TABLE "tool_rule" DROP CONSTRAINT "tool_rule_tool_fk"');
    await queryRunner.query(
      'ALTER TABLE "server_tool_override" DROP CONSTRAINT "server_tool_override_tool_fk"',
    );
    await queryRunner.query(
      'ALTER TABLE "server_tool_override" DROP CONSTRAINT "server_tool_override_server_fk"',
    );
    await queryRunner.query('ALTER TABLE "server" DROP COLUMN "hooks"');
    await queryRunner.query('DROP TABLE "rate_limit_counter"');
    await queryRunner.query('DROP INDEX "public"."rate_limit_server_idx"');
    await queryRunner.query('DROP INDEX "public"."rate_limit_tool_idx"');
    await queryRunner.query('DROP TABLE "rate_limit"');
    await queryRunner.query('DROP INDEX "public"."tool_rule_tool_idx"');
    await queryRunner.query('DROP INDEX "public"."tool_rule_server_idx"');
    await queryRunner.query('DROP INDEX "public"."tool_rule_team_idx"');
    await queryRunner.query('DROP TABLE "tool_rule"');
    await queryRunner.query('DROP INDEX "public"."server_tool_override_tool_idx"');
    await queryRunner.query('DROP TABLE "server_tool_override"');
  }
}
