import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The input-round states that have let a call through on a person's yes, each kept until it
 * expires: a retry sent again with one is refused instead of running the call again.
 */
export class ApprovalUses1796032980936 implements MigrationInterface {
  name = 'ApprovalUses1796032980936';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "approval_use" ("state_id" character varying(32) NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "approval_use_pk" PRIMARY KEY ("state_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "approval_use_expires_idx" ON "approval_use" ("expires_at") `,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."approval_use_expires_idx"`);
    await queryRunner.query(`DROP TABLE "approval_use"`);
  }
}
