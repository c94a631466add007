import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A remembered approval is bound to the revision of the policy that asked; the ones given before
 * have none, so their people are asked again once.
 */
export class ApprovalRevision1795974000000 implements MigrationInterface {
  name = 'ApprovalRevision1795974000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "approval_grant" ADD "policy_revision" character varying(64) NOT NULL DEFAULT ''`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "approval_grant" DROP COLUMN "policy_revision"`);
  }
}
