import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Consolidated tools: one tool a client sees for the same tool on several gateways, its targets
 * (label and gateway tool), and the virtual servers that include it.
 */
export class ConsolidatedTools1795972000000 implements MigrationInterface {
  name = 'ConsolidatedTools1795972000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "consolidated_tool" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(128) NOT NULL, "description" text NOT NULL DEFAULT \'\', "input_schema" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "consolidated_tool_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "consolidated_tool_name_uq" ON "consolidated_tool" ("name") ',
    );
    await queryRunner.query(
      'CREATE TABLE "consolidated_member" ("consolidated_tool_id" uuid NOT NULL, "target" character varying(64) NOT NULL, "tool_id" uuid NOT NULL, CONSTRAINT "consolidated_member_pk" PRIMARY KEY ("consolidated_tool_id", "target"))',
    );
    await queryRunner.query(
      'CREATE INDEX "consolidated_member_tool_idx" ON "consolidated_member" ("tool_id") ',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "consolidated_member_tool_uq" ON "consolidated_member" ("consolidated_tool_id", "tool_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "server_consolidated_tool" ("server_id" uuid NOT NULL, "consolidated_tool_id" uuid NOT NULL, CONSTRAINT "server_consolidated_tool_pk" PRIMARY KEY ("server_id", "consolidated_tool_id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "server_consolidated_tool_tool_idx" ON "server_consolidated_tool" ("consolidated_tool_id") ',
    );
    await queryRunner.query(
      'ALTER TABLE "consolidated_member" ADD CONSTRAINT "consolidated_member_consolidated_tool_fk" FOREIGN KEY ("consolidated_tool_id") REFERENCES "consolidated_tool"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "consolidated_member" ADD CONSTRAINT "consolidated_member_tool_fk" FOREIGN KEY ("tool_id") REFERENCES "tool"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "server_consolidated_tool" ADD CONSTRAINT "server_consolidated_tool_server_fk" FOREIGN KEY ("server_id") REFERENCES "server"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "server_consolidated_tool" ADD CONSTRAINT "server_consolidated_tool_tool_fk" FOREIGN KEY ("consolidated_tool_id") REFERENCES "consolidated_tool"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "server_consolidated_tool" DROP CONSTRAINT "server_consolidated_tool_tool_fk"',
    );
    await queryRunner.query(
      'ALTER TABLE "server_consolidated_tool" DROP CONSTRAINT "server_consolidated_tool_server_fk"',
    );
    await queryRunner.query(
      'ALTER TABLE "consolidated_member" DROP CONSTRAINT "consolidated_member_tool_fk"',
    );
    await queryRunner.query(
      'ALTER TABLE "consolidated_member" DROP CONSTRAINT "consolidated_member_consolidated_tool_fk"',
    );
    await queryRunner.query('DROP INDEX "public"."server_consolidated_tool_tool_idx"');
    await queryRunner.query('DROP TABLE "server_consolidated_tool"');
    await queryRunner.query('DROP INDEX "public"."consolidated_member_tool_uq"');
    await queryRunner.query('DROP INDEX "public"."consolidated_member_tool_idx"');
    await queryRunner.query('DROP TABLE "consolidated_member"');
    await queryRunner.query('DROP INDEX "public"."consolidated_tool_name_uq"');
    await queryRunner.query('DROP TABLE "consolidated_tool"');
  }
}
