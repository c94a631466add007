import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Trigram indexes for the text filter of tool lists (`ILIKE '%…%'` on the virtual name and the
 * description). The name one is built for the default separator; ToolNameQuery.ensureIndex
 * rebuilds it for another, as it does the unique virtual-name index.
 */
export class ToolTextSearch1795323626806 implements MigrationInterface {
  name = 'ToolTextSearch1795323626806';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await queryRunner.query(
      `CREATE INDEX "tool_virtual_name_trgm" ON "tool" USING gin (("gateway_slug" || '-' || "original_name") gin_trgm_ops)`,
    );
    await queryRunner.query(
      'CREATE INDEX "tool_description_trgm" ON "tool" USING gin ("description" gin_trgm_ops)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."tool_description_trgm"');
    await queryRunner.query('DROP INDEX "public"."tool_virtual_name_trgm"');
  }
}
