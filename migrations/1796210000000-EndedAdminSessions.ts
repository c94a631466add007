import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Admin sessions ended by logging out, refused on every replica until they would have expired. */
export class EndedAdminSessions1796210000000 implements MigrationInterface {
  name = 'EndedAdminSessions1796210000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "admin_session_end" ("sid" character varying(64) NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "admin_session_end_pk" PRIMARY KEY ("sid"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "admin_session_end_expires_idx" ON "admin_session_end" ("expires_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "admin_session_end"`);
  }
}
