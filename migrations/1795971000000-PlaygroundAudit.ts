import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * An audit entry of a call made in the admin playground names who made it (`acted_by`), apart
 * from the user the call was made as (`username`, `user_id`).
 */
export class PlaygroundAudit1795971000000 implements MigrationInterface {
  name = 'PlaygroundAudit1795971000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "audit_entry" ADD "acted_by" character varying(255)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "audit_entry" DROP COLUMN "acted_by"`);
  }
}
