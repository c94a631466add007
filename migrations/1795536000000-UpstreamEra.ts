import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Which era of MCP each gateway's upstream speaks, as probed, and when: the verdict expires. */
export class UpstreamEra1795536000000 implements MigrationInterface {
  name = 'UpstreamEra1795536000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "gateway" ADD "protocol_era" character varying(16), ADD "protocol_version" character varying(32), ADD "protocol_supported_versions" jsonb, ADD "protocol_checked_at" TIMESTAMP WITH TIME ZONE, ADD "protocol_endpoint" character(64)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "gateway" DROP COLUMN "protocol_endpoint", DROP COLUMN "protocol_checked_at", DROP COLUMN "protocol_supported_versions", DROP COLUMN "protocol_version", DROP COLUMN "protocol_era"`,
    );
  }
}
