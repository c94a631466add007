import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** The hash of the last CONFIG_FILE applied, so that replicas apply a file once per change. */
export class ConfigApply1795520000000 implements MigrationInterface {
  name = 'ConfigApply1795520000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "config_apply" ("source" character varying(64) NOT NULL, "hash" character(64) NOT NULL, "applied_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "config_apply_pk" PRIMARY KEY ("source"))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "config_apply"`);
  }
}
