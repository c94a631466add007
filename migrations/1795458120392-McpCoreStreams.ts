import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class McpCoreStreams1795458120392 implements MigrationInterface {
  name = 'McpCoreStreams1795458120392';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "mcp_stream_event" ("id" BIGSERIAL NOT NULL, "session_id" character varying(64) NOT NULL, "stream_id" character varying(32) NOT NULL, "message" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "mcp_stream_event_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "mcp_stream_event_created_idx" ON "mcp_stream_event" ("created_at") ',
    );
    await queryRunner.query(
      'CREATE INDEX "mcp_stream_event_stream_idx" ON "mcp_stream_event" ("session_id", "stream_id", "id") ',
    );
    await queryRunner.query(
      'ALTER TABLE "server" ADD "naming" character varying(16) NOT NULL DEFAULT \'prefixed\'',
    );
    await queryRunner.query(
      'ALTER TABLE "mcp_session" ADD "transport" character varying(16) NOT NULL DEFAULT \'streamable-http\'',
    );
    await queryRunner.query(
      'ALTER TABLE "mcp_session" ADD "subscriptions" jsonb NOT NULL DEFAULT \'[]\'',
    );
    await queryRunner.query(
      'ALTER TABLE "mcp_session" ALTER COLUMN "initialize_params" DROP NOT NULL',
    );
    await queryRunner.query(
      'ALTER TABLE "mcp_stream_event" ADD CONSTRAINT "mcp_stream_event_session_fk" FOREIGN KEY ("session_id") REFERENCES "mcp_session"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "mcp_stream_event" DROP CONSTRAINT "mcp_stream_event_session_fk"',
    );
    await queryRunner.query(
      'ALTER TABLE "mcp_session" ALTER COLUMN "initialize_params" SET NOT NULL',
    );
    await queryRunner.query('ALTER TABLE "mcp_session" DROP COLUMN "subscriptions"');
    await queryRunner.query('ALTER TABLE "mcp_session" DROP COLUMN "transport"');
    await queryRunner.query('ALTER TABLE "server" DROP COLUMN "naming"');
    await queryRunner.query('DROP INDEX "public"."mcp_stream_event_stream_idx"');
    await queryRunner.query('DROP INDEX "public"."mcp_stream_event_created_idx"');
    await queryRunner.query('DROP TABLE "mcp_stream_event"');
  }
}
