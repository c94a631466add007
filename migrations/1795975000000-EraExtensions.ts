import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The extensions a 2026-07-28 upstream declared when its era was probed, kept with the verdict so
 * that every replica knows them without asking the upstream.
 */
export class EraExtensions1795975000000 implements MigrationInterface {
  name = 'EraExtensions1795975000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "gateway" ADD "protocol_extensions" jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "gateway" DROP COLUMN "protocol_extensions"`);
  }
}
