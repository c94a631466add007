import { type MigrationInterface, type QueryRunner } from 'typeorm';

const PINNED = ['tool', 'prompt', 'resource_template'];

/**
 * Pinned definitions: each tool, prompt and resource template can be pinned by the hash of its
 * approved definition, held back (quarantined) while a newer one waits, and carries the scanner's
 * findings; each gateway says how it pins and whether findings hold definitions back.
 */
export class DefinitionPins1795690000000 implements MigrationInterface {
  name = 'DefinitionPins1795690000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of PINNED) {
      await queryRunner.query(
        `ALTER TABLE "${table}" ADD "pinned_hash" character varying(64), ADD "rejected_hash" character varying(64), ADD "quarantine" jsonb, ADD "findings" jsonb`,
      );
      await queryRunner.query(
        `CREATE INDEX "${table}_quarantine_idx" ON "${table}" ("gateway_id") WHERE "quarantine" IS NOT NULL`,
      );
    }
    await queryRunner.query(
      `ALTER TABLE "gateway" ADD "pinning" character varying(16) NOT NULL DEFAULT 'off', ADD "quarantine_on_finding" character varying(8)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "gateway" DROP COLUMN "quarantine_on_finding", DROP COLUMN "pinning"`,
    );
    for (const table of PINNED) {
      await queryRunner.query(`DROP INDEX "${table}_quarantine_idx"`);
      await queryRunner.query(
        `ALTER TABLE "${table}" DROP COLUMN "findings", DROP COLUMN "quarantine", DROP COLUMN "rejected_hash", DROP COLUMN "pinned_hash"`,
      );
    }
  }
}
