import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Skills (the Skills extension) synced from upstreams, pinned by manifest, and server members. */
export class Skills1795930000000 implements MigrationInterface {
  name = 'Skills1795930000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "skill" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "gateway_id" uuid NOT NULL, "gateway_slug" character varying(64) NOT NULL, "name" character varying(64) NOT NULL, "uri" text NOT NULL, "frontmatter" jsonb NOT NULL, "resources" jsonb NOT NULL, "meta" jsonb, "manifest_hash" character varying(64) NOT NULL, "pinned_hash" character varying(64), "pinned_resources" jsonb, "directory_read" boolean NOT NULL DEFAULT false, "ttl_ms" integer, "cache_scope" character varying(8), "read_at" TIMESTAMP WITH TIME ZONE NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "skill_pk" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "skill_gateway_uri_uq" ON "skill" ("gateway_id", "uri")`,
    );
    await queryRunner.query(
      `ALTER TABLE "skill" ADD CONSTRAINT "skill_gateway_fk" FOREIGN KEY ("gateway_id") REFERENCES "gateway"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE TABLE "server_skill" ("server_id" uuid NOT NULL, "skill_id" uuid NOT NULL, CONSTRAINT "server_skill_pk" PRIMARY KEY ("server_id", "skill_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "server_skill_skill_idx" ON "server_skill" ("skill_id")`);
    await queryRunner.query(
      `ALTER TABLE "server_skill" ADD CONSTRAINT "server_skill_server_fk" FOREIGN KEY ("server_id") REFERENCES "server"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "server_skill" ADD CONSTRAINT "server_skill_skill_fk" FOREIGN KEY ("skill_id") REFERENCES "skill"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "server_skill"`);
    await queryRunner.query(`DROP TABLE "skill"`);
  }
}
