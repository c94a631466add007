import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Whether an MCP session was opened with a token a token service can exchange (RFC 8693). */
export class SessionExchangeable1795970000000 implements MigrationInterface {
  name = 'SessionExchangeable1795970000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "mcp_session" ADD "exchangeable" boolean NOT NULL DEFAULT false`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "mcp_session" DROP COLUMN "exchangeable"`);
  }
}
