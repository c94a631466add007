import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** A gateway's own timeout, circuit breaker, call cap and retries, over the replica's settings. */
export class GatewaySettings1795973000000 implements MigrationInterface {
  name = 'GatewaySettings1795973000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "gateway" ADD "settings" jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "gateway" DROP COLUMN "settings"`);
  }
}
