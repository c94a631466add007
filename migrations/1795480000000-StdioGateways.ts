import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class StdioGateways1795480000000 implements MigrationInterface {
  name = 'StdioGateways1795480000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "gateway" ALTER COLUMN "url" DROP NOT NULL');
    await queryRunner.query(
      'ALTER TABLE "gateway" ADD "stdio_command" character varying(1024), ADD "stdio_args" jsonb, ADD "stdio_cwd" character varying(1024), ADD "stdio_env_names" jsonb, ADD "stdio_env" text',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM "gateway" WHERE "url" IS NULL');
    await queryRunner.query(
      'ALTER TABLE "gateway" DROP COLUMN "stdio_env", DROP COLUMN "stdio_env_names", DROP COLUMN "stdio_cwd", DROP COLUMN "stdio_args", DROP COLUMN "stdio_command"',
    );
    await queryRunner.query('ALTER TABLE "gateway" ALTER COLUMN "url" SET NOT NULL');
  }
}
