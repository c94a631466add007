import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Each stored stream message's size, so that what a session keeps for resumption is bounded in
 * bytes as well as in messages; the messages kept already are measured once.
 */
export class StreamEventBytes1796100000000 implements MigrationInterface {
  name = 'StreamEventBytes1796100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "mcp_stream_event" ADD "bytes" integer NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(
      `UPDATE "mcp_stream_event" SET "bytes" = octet_length("message"::text)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "mcp_stream_event" DROP COLUMN "bytes"`);
  }
}
