import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Approvals asked by the gateway: remembered yeses, and the approval in a call's audit entry. */
export class Approvals1795710000000 implements MigrationInterface {
  name = 'Approvals1795710000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "approval_grant" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "subject" character varying(128) NOT NULL, "username" character varying(255) NOT NULL, "tool_id" uuid NOT NULL, "policy_id" uuid NOT NULL, "policy_name" character varying(128) NOT NULL, "granted_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "approval_grant_pk" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "approval_grant_expires_idx" ON "approval_grant" ("expires_at")`,
    );
    await queryRunner.query(
      `ALTER TABLE "approval_grant" ADD CONSTRAINT "approval_grant_tool_fk" FOREIGN KEY ("tool_id") REFERENCES "tool"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`ALTER TABLE "audit_entry" ADD "approval" jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "audit_entry" DROP COLUMN "approval"`);
    await queryRunner.query(`DROP TABLE "approval_grant"`);
  }
}
