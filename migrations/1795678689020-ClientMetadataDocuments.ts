import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Clients named by the URL of their Client ID Metadata Document: client ids up to 1024 characters
 * (widened in place, so registered clients and their grants stay), and when a document's copy
 * goes stale.
 */
export class ClientMetadataDocuments1795678689020 implements MigrationInterface {
  name = 'ClientMetadataDocuments1795678689020';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "oauth_client" ADD "document_expires_at" TIMESTAMP WITH TIME ZONE',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth_client" ALTER COLUMN "client_id" TYPE character varying(1024)',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth_grant" ALTER COLUMN "client_id" TYPE character varying(1024)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // URL client ids do not fit the old column; their grants go with them.
    await queryRunner.query('DELETE FROM "oauth_client" WHERE "document_expires_at" IS NOT NULL');
    await queryRunner.query(
      'ALTER TABLE "oauth_grant" ALTER COLUMN "client_id" TYPE character varying(64)',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth_client" ALTER COLUMN "client_id" TYPE character varying(64)',
    );
    await queryRunner.query('ALTER TABLE "oauth_client" DROP COLUMN "document_expires_at"');
  }
}
