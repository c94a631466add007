import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * An era policy per upstream and per server: a gateway's era can be pinned (`auto` probes), and a
 * virtual server can take clients of one era only.
 */
export class EraPolicy1795960000000 implements MigrationInterface {
  name = 'EraPolicy1795960000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "gateway" ADD "era_pin" character varying(16) NOT NULL DEFAULT 'auto'`,
    );
    await queryRunner.query(
      `ALTER TABLE "server" ADD "client_eras" character varying(16) NOT NULL DEFAULT 'any'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "server" DROP COLUMN "client_eras"`);
    await queryRunner.query(`ALTER TABLE "gateway" DROP COLUMN "era_pin"`);
  }
}
