import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * One store of tool-search promotions, keyed by their owner (see ownerKey): the principals' rows
 * of `mcp_promotion` move from (scope, subject) to `principal:<scope>:<subject>`, and every 2025
 * session's promotions move out of its row into `session:<id>`, which the session's foreign key
 * removes with it.
 */
export class OnePromotionStore1795915000000 implements MigrationInterface {
  name = 'OnePromotionStore1795915000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "mcp_promotion" ADD "owner" character varying(256)');
    await queryRunner.query(
      `UPDATE "mcp_promotion" SET "owner" = 'principal:' || "scope" || ':' || "subject"`,
    );
    await queryRunner.query('ALTER TABLE "mcp_promotion" DROP CONSTRAINT "mcp_promotion_pk"');
    await queryRunner.query('ALTER TABLE "mcp_promotion" DROP COLUMN "scope"');
    await queryRunner.query('ALTER TABLE "mcp_promotion" DROP COLUMN "subject"');
    await queryRunner.query('ALTER TABLE "mcp_promotion" ALTER COLUMN "owner" SET NOT NULL');
    await queryRunner.query(
      'ALTER TABLE "mcp_promotion" ADD CONSTRAINT "mcp_promotion_pk" PRIMARY KEY ("owner")',
    );
    await queryRunner.query('ALTER TABLE "mcp_promotion" ADD "session_id" character varying(64)');
    // Only well-formed promotions: the column was free-form JSON.
    await queryRunner.query(
      `INSERT INTO "mcp_promotion" ("owner", "session_id", "catalog_hash", "names")
       SELECT 'session:' || "id", "id", "promotions"->>'catalogHash', "promotions"->'names'
       FROM "mcp_session"
       WHERE jsonb_typeof("promotions"->'catalogHash') = 'string'
         AND jsonb_typeof("promotions"->'names') = 'array'`,
    );
    await queryRunner.query('ALTER TABLE "mcp_session" DROP COLUMN "promotions"');
    await queryRunner.query(
      'CREATE INDEX "mcp_promotion_session_idx" ON "mcp_promotion" ("session_id") ',
    );
    await queryRunner.query(
      `ALTER TABLE "mcp_promotion" ADD CONSTRAINT "mcp_promotion_owner_check" CHECK (("session_id" IS NULL AND "owner" LIKE 'principal:%') OR ("session_id" IS NOT NULL AND "owner" = 'session:' || "session_id"))`,
    );
    await queryRunner.query(
      'ALTER TABLE "mcp_promotion" ADD CONSTRAINT "mcp_promotion_session_fk" FOREIGN KEY ("session_id") REFERENCES "mcp_session"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "mcp_session" ADD "promotions" jsonb');
    await queryRunner.query(
      `UPDATE "mcp_session" SET "promotions" =
         jsonb_build_object('catalogHash', p."catalog_hash", 'names', p."names")
       FROM "mcp_promotion" p WHERE p."session_id" = "mcp_session"."id"`,
    );
    await queryRunner.query(
      'ALTER TABLE "mcp_promotion" DROP CONSTRAINT "mcp_promotion_session_fk"',
    );
    await queryRunner.query(
      'ALTER TABLE "mcp_promotion" DROP CONSTRAINT "mcp_promotion_owner_check"',
    );
    await queryRunner.query('DROP INDEX "public"."mcp_promotion_session_idx"');
    await queryRunner.query('DELETE FROM "mcp_promotion" WHERE "session_id" IS NOT NULL');
    await queryRunner.query('ALTER TABLE "mcp_promotion" DROP COLUMN "session_id"');
    await queryRunner.query('ALTER TABLE "mcp_promotion" ADD "scope" character varying(64)');
    await queryRunner.query('ALTER TABLE "mcp_promotion" ADD "subject" character varying(128)');
    // A scope key is `all` or `server:<id>`; the subject is the rest.
    await queryRunner.query(
      `UPDATE "mcp_promotion" SET
         "scope" = substring("owner" from '^principal:(all|server:[^:]*):'),
         "subject" = substring("owner" from '^principal:(?:all|server:[^:]*):(.*)$')`,
    );
    await queryRunner.query(
      'DELETE FROM "mcp_promotion" WHERE "scope" IS NULL OR "subject" IS NULL',
    );
    await queryRunner.query('ALTER TABLE "mcp_promotion" DROP CONSTRAINT "mcp_promotion_pk"');
    await queryRunner.query('ALTER TABLE "mcp_promotion" DROP COLUMN "owner"');
    await queryRunner.query('ALTER TABLE "mcp_promotion" ALTER COLUMN "scope" SET NOT NULL');
    await queryRunner.query('ALTER TABLE "mcp_promotion" ALTER COLUMN "subject" SET NOT NULL');
    await queryRunner.query(
      'ALTER TABLE "mcp_promotion" ADD CONSTRAINT "mcp_promotion_pk" PRIMARY KEY ("scope", "subject")',
    );
  }
}
