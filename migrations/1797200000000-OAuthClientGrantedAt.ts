import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * When a user first granted an OAuth client anything: a registration never granted anything is
 * purged a day later. Clients registered before count as granted at their registration, since
 * whether they ever were is not known.
 */
export class OAuthClientGrantedAt1797200000000 implements MigrationInterface {
  name = 'OAuthClientGrantedAt1797200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "oauth_client" ADD "granted_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`UPDATE "oauth_client" SET "granted_at" = "created_at"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "oauth_client" DROP COLUMN "granted_at"`);
  }
}
