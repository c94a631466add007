import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Era verdicts are named by their revisions: `2025` (a session opened with `initialize`) and
 * `2026-07-28` (stateless), instead of `legacy` and `modern`; "legacy" names only the 2024
 * HTTP+SSE transport.
 */
export class EraNames1795950000000 implements MigrationInterface {
  name = 'EraNames1795950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "gateway" SET "protocol_era" = CASE "protocol_era" WHEN 'legacy' THEN '2025' ELSE '2026-07-28' END WHERE "protocol_era" IN ('legacy', 'modern')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "gateway" SET "protocol_era" = CASE "protocol_era" WHEN '2025' THEN 'legacy' ELSE 'modern' END WHERE "protocol_era" IN ('2025', '2026-07-28')`,
    );
  }
}
