import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** OpenAPI gateways: where the description comes from (a URL or the text) and which operations. */
export class OpenApiGateways1795931000000 implements MigrationInterface {
  name = 'OpenApiGateways1795931000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "gateway" ADD "openapi_url" character varying(2048), ADD "openapi_document" text, ADD "openapi_selection" jsonb`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "gateway" DROP COLUMN "openapi_selection", DROP COLUMN "openapi_document", DROP COLUMN "openapi_url"`,
    );
  }
}
