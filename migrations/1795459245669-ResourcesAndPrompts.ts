import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class ResourcesAndPrompts1795459245669 implements MigrationInterface {
  name = 'ResourcesAndPrompts1795459245669';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "prompt" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "gateway_id" uuid NOT NULL, "original_name" character varying(128) NOT NULL, "gateway_slug" character varying(64) NOT NULL, "title" character varying(256), "description" text NOT NULL DEFAULT \'\', "arguments" jsonb NOT NULL DEFAULT \'[]\', "meta" jsonb, "content_hash" character varying(64) NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "prompt_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "prompt_gateway_original_name_uq" ON "prompt" ("gateway_id", "original_name") ',
    );
    await queryRunner.query(
      'CREATE TABLE "resource_template" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "gateway_id" uuid NOT NULL, "gateway_slug" character varying(64) NOT NULL, "uri_template" text NOT NULL, "name" character varying(256) NOT NULL, "title" character varying(256), "description" text NOT NULL DEFAULT \'\', "mime_type" character varying(256), "annotations" jsonb, "meta" jsonb, "content_hash" character varying(64) NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "resource_template_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "resource_template_gateway_uri_uq" ON "resource_template" ("gateway_id", "uri_template") ',
    );
    await queryRunner.query(
      'CREATE TABLE "resource" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "gateway_id" uuid NOT NULL, "gateway_slug" character varying(64) NOT NULL, "uri" text NOT NULL, "name" character varying(256) NOT NULL, "title" character varying(256), "description" text NOT NULL DEFAULT \'\', "mime_type" character varying(256), "size" bigint, "annotations" jsonb, "meta" jsonb, "content_hash" character varying(64) NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "resource_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "resource_gateway_uri_uq" ON "resource" ("gateway_id", "uri") ',
    );
    await queryRunner.query(
      'CREATE TABLE "server_resource" ("server_id" uuid NOT NULL, "resource_id" uuid NOT NULL, CONSTRAINT "server_resource_pk" PRIMARY KEY ("server_id", "resource_id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "server_resource_resource_idx" ON "server_resource" ("resource_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "server_resource_template" ("server_id" uuid NOT NULL, "template_id" uuid NOT NULL, CONSTRAINT "server_resource_template_pk" PRIMARY KEY ("server_id", "template_id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "server_resource_template_template_idx" ON "server_resource_template" ("template_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "server_prompt" ("server_id" uuid NOT NULL, "prompt_id" uuid NOT NULL, CONSTRAINT "server_prompt_pk" PRIMARY KEY ("server_id", "prompt_id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "server_prompt_prompt_idx" ON "server_prompt" ("prompt_id") ',
    );
    await queryRunner.query(
      'ALTER TABLE "prompt" ADD CONSTRAINT "prompt_gateway_fk" FOREIGN KEY ("gateway_id") REFERENCES "gateway"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "resource_template" ADD CONSTRAINT "resource_template_gateway_fk" FOREIGN KEY ("gateway_id") REFERENCES "gateway"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    // The virtual-name index for the default separator '-'; start-up rebuilds it for another.
    await queryRunner.query(
      'CREATE UNIQUE INDEX "prompt_virtual_name_uq" ON "prompt" (("gateway_slug" || \'-\' || "original_name"))',
    );
    await queryRunner.query(
      'ALTER TABLE "resource" ADD CONSTRAINT "resource_gateway_fk" FOREIGN KEY ("gateway_id") REFERENCES "gateway"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "server_resource" ADD CONSTRAINT "server_resource_server_fk" FOREIGN KEY ("server_id") REFERENCES "server"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "server_resource" ADD CONSTRAINT "server_resource_resource_fk" FOREIGN KEY ("resource_id") REFERENCES "resource"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "server_resource_template" ADD CONSTRAINT "server_resource_template_server_fk" FOREIGN KEY ("server_id") REFERENCES "server"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "server_resource_template" ADD CONSTRAINT "server_resource_template_template_fk" FOREIGN KEY ("template_id") REFERENCES "resource_template"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "server_prompt" ADD CONSTRAINT "server_prompt_server_fk" FOREIGN KEY ("server_id") REFERENCES "server"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "server_prompt" ADD CONSTRAINT "server_prompt_prompt_fk" FOREIGN KEY ("prompt_id") REFERENCES "prompt"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "prompt_virtual_name_uq"');
    await queryRunner.query(
      'ALTER TABLE "server_prompt" DROP CONSTRAINT "server_prompt_prompt_fk"',
    );
    await queryRunner.query(
      'ALTER TABLE "server_prompt" DROP CONSTRAINT "server_prompt_server_fk"',
    );
    await queryRunner.query(
      'ALTER TABLE "server_resource_template" DROP CONSTRAINT "server_resource_template_template_fk"',
    );
    await queryRunner.query(
      'ALTER TABLE "server_resource_template" DROP CONSTRAINT "server_resource_template_server_fk"',
    );
    await queryRunner.query(
      'ALTER TABLE "server_resource" DROP CONSTRAINT "server_resource_resource_fk"',
    );
    await queryRunner.query(
      'ALTER TABLE "server_resource" DROP CONSTRAINT "server_resource_server_fk"',
    );
    await queryRunner.query('ALTER TABLE "resource" DROP CONSTRAINT "resource_gateway_fk"');
    await queryRunner.query(
      'ALTER TABLE "resource_template" DROP CONSTRAINT "resource_template_gateway_fk"',
    );
    await queryRunner.query('ALTER TABLE "prompt" DROP CONSTRAINT "prompt_gateway_fk"');
    await queryRunner.query('DROP INDEX "public"."server_prompt_prompt_idx"');
    await queryRunner.query('DROP TABLE "server_prompt"');
    await queryRunner.query('DROP INDEX "public"."server_resource_template_template_idx"');
    await queryRunner.query('DROP TABLE "server_resource_template"');
    await queryRunner.query('DROP INDEX "public"."server_resource_resource_idx"');
    await queryRunner.query('DROP TABLE "server_resource"');
    await queryRunner.query('DROP INDEX "public"."resource_gateway_uri_uq"');
    await queryRunner.query('DROP TABLE "resource"');
    await queryRunner.query('DROP INDEX "public"."resource_template_gateway_uri_uq"');
    await queryRunner.query('DROP TABLE "resource_template"');
    await queryRunner.query('DROP INDEX "public"."prompt_gateway_original_name_uq"');
    await queryRunner.query('DROP TABLE "prompt"');
  }
}
