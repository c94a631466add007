import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class LoginAttempts1795325639193 implements MigrationInterface {
  name = 'LoginAttempts1795325639193';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "login_attempt" ("key" character(64) NOT NULL, "attempts" integer NOT NULL, "window_started_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "login_attempt_pk" PRIMARY KEY ("key"))',
    );
    await queryRunner.query(
      'CREATE INDEX "login_attempt_window_idx" ON "login_attempt" ("window_started_at") ',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."login_attempt_window_idx"');
    await queryRunner.query('DROP TABLE "login_attempt"');
  }
}
