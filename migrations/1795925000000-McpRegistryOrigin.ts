import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Where an imported gateway came from in an MCP Registry, and the entry a re-import compares with. */
export class McpRegistryOrigin1795925000000 implements MigrationInterface {
  name = 'McpRegistryOrigin1795925000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "gateway" ADD "registry_url" character varying(2048), ADD "registry_server_name" character varying(200), ADD "registry_version" character varying(255), ADD "registry_entry" jsonb',
    );
    await queryRunner.query('CREATE INDEX "gateway_registry_idx" ON "gateway" ("registry_url") ');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."gateway_registry_idx"');
    await queryRunner.query(
      'ALTER TABLE "gateway" DROP COLUMN "registry_entry", DROP COLUMN "registry_version", DROP COLUMN "registry_server_name", DROP COLUMN "registry_url"',
    );
  }
}
