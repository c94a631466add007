import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class McpSessions1795313067731 implements MigrationInterface {
  name = 'McpSessions1795313067731';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "event_relay" ("id" BIGSERIAL NOT NULL, "payload" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "event_relay_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "event_relay_created_idx" ON "event_relay" ("created_at") ',
    );
    await queryRunner.query(
      'CREATE TABLE "mcp_session" ("id" character varying(64) NOT NULL, "server_id" uuid, "subject" character varying(128) NOT NULL, "protocol_version" character varying(32) NOT NULL, "initialize_params" jsonb NOT NULL, "log_level" character varying(16), "promotions" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "mcp_session_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "mcp_session_last_seen_idx" ON "mcp_session" ("last_seen_at") ',
    );
    await queryRunner.query(
      'ALTER TABLE "mcp_session" ADD CONSTRAINT "mcp_session_server_fk" FOREIGN KEY ("server_id") REFERENCES "server"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "mcp_session" DROP CONSTRAINT "mcp_session_server_fk"');
    await queryRunner.query('DROP INDEX "public"."mcp_session_last_seen_idx"');
    await queryRunner.query('DROP TABLE "mcp_session"');
    await queryRunner.query('DROP INDEX "public"."event_relay_created_idx"');
    await queryRunner.query('DROP TABLE "event_relay"');
  }
}
