import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The authorization request each code answers, unique: submitting a consent form again grants
 * nothing more. Codes issued before carry none.
 */
export class OAuthCodeRequest1796200000000 implements MigrationInterface {
  name = 'OAuthCodeRequest1796200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "oauth_code" ADD "request_id" uuid`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "oauth_code_request_uq" ON "oauth_code" ("request_id")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."oauth_code_request_uq"`);
    await queryRunner.query(`ALTER TABLE "oauth_code" DROP COLUMN "request_id"`);
  }
}
