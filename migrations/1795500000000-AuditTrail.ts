import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class AuditTrail1795500000000 implements MigrationInterface {
  name = 'AuditTrail1795500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "audit_entry" ("id" uuid NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "kind" character varying(16) NOT NULL, "action" character varying(200) NOT NULL, "outcome" character varying(16) NOT NULL, "status" integer, "duration_ms" double precision, "subject" character varying(128), "username" character varying(255), "user_id" uuid, "token_id" uuid, "team_ids" uuid array NOT NULL DEFAULT \'{}\', "client_name" character varying(255), "server_id" uuid, "gateway" character varying(255), "target" character varying(1024), "arguments_digest" character(64), "arguments" jsonb, "detail" character varying(500), "request_id" character varying(64), "trace_id" character(32), "replica" character varying(64) NOT NULL, CONSTRAINT "audit_entry_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "audit_entry_username_idx" ON "audit_entry" ("username", "occurred_at") ',
    );
    await queryRunner.query(
      'CREATE INDEX "audit_entry_target_idx" ON "audit_entry" ("target", "occurred_at") ',
    );
    await queryRunner.query(
      'CREATE INDEX "audit_entry_occurred_idx" ON "audit_entry" ("occurred_at", "id") ',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."audit_entry_occurred_idx"');
    await queryRunner.query('DROP INDEX "public"."audit_entry_target_idx"');
    await queryRunner.query('DROP INDEX "public"."audit_entry_username_idx"');
    await queryRunner.query('DROP TABLE "audit_entry"');
  }
}
