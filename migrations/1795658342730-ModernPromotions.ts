import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Tool-search promotions of a principal in a scope, for modern (sessionless) clients. */
export class ModernPromotions1795658342730 implements MigrationInterface {
  name = 'ModernPromotions1795658342730';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "mcp_promotion" ("scope" character varying(64) NOT NULL, "subject" character varying(128) NOT NULL, "catalog_hash" character varying(128) NOT NULL, "names" jsonb NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "mcp_promotion_pk" PRIMARY KEY ("scope", "subject"))',
    );
    await queryRunner.query(
      'CREATE INDEX "mcp_promotion_updated_idx" ON "mcp_promotion" ("updated_at") ',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."mcp_promotion_updated_idx"');
    await queryRunner.query('DROP TABLE "mcp_promotion"');
  }
}
