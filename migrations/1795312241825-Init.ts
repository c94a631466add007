import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class Init1795312241825 implements MigrationInterface {
  name = 'Init1795312241825';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "admin_user" ("username" character varying(128) NOT NULL, "password_hash" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "admin_user_pk" PRIMARY KEY ("username"))',
    );
    await queryRunner.query(
      'CREATE TABLE "tool" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "gateway_id" uuid NOT NULL, "original_name" character varying(128) NOT NULL, "gateway_slug" character varying(64) NOT NULL, "title" character varying(256), "description" text NOT NULL DEFAULT \'\', "input_schema" jsonb NOT NULL, "output_schema" jsonb, "annotations" jsonb, "meta" jsonb, "tool_hash" character varying(12) NOT NULL, "content_hash" character varying(64) NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "app_config" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "tool_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query('CREATE UNIQUE INDEX "tool_hash_uq" ON "tool" ("tool_hash") ');
    // The virtual-name index for the default separator; VirtualNameIndex rebuilds it for another.
    await queryRunner.query(
      'CREATE UNIQUE INDEX "tool_virtual_name_uq" ON "tool" (("gateway_slug" || \'-\' || "original_name"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "tool_gateway_original_name_uq" ON "tool" ("gateway_id", "original_name") ',
    );
    await queryRunner.query(
      'CREATE TABLE "gateway" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(200) NOT NULL, "slug" character varying(64) NOT NULL, "url" character varying(2048) NOT NULL, "transport" character varying(32) NOT NULL DEFAULT \'streamable-http\', "auth_type" character varying(16) NOT NULL DEFAULT \'none\', "auth_secret" text, "enabled" boolean NOT NULL DEFAULT true, "status" character varying(16) NOT NULL DEFAULT \'unknown\', "last_error" text, "last_seen_at" TIMESTAMP WITH TIME ZONE, "last_sync_at" TIMESTAMP WITH TIME ZONE, "last_sync_report" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "gateway_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query('CREATE UNIQUE INDEX "gateway_name_uq" ON "gateway" ("name") ');
    await queryRunner.query('CREATE UNIQUE INDEX "gateway_slug_uq" ON "gateway" ("slug") ');
    await queryRunner.query('CREATE UNIQUE INDEX "gateway_url_uq" ON "gateway" ("url") ');
    await queryRunner.query(
      'CREATE TABLE "server" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(200) NOT NULL, "description" text NOT NULL DEFAULT \'\', "enabled" boolean NOT NULL DEFAULT true, "tool_search_enabled" boolean NOT NULL DEFAULT false, "tool_search_always_loaded" jsonb NOT NULL DEFAULT \'[]\'::jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "server_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query('CREATE UNIQUE INDEX "server_name_uq" ON "server" ("name") ');
    await queryRunner.query(
      'CREATE TABLE "server_tool" ("server_id" uuid NOT NULL, "tool_id" uuid NOT NULL, CONSTRAINT "server_tool_pk" PRIMARY KEY ("server_id", "tool_id"))',
    );
    await queryRunner.query('CREATE INDEX "server_tool_tool_idx" ON "server_tool" ("tool_id") ');
    await queryRunner.query(
      'ALTER TABLE "tool" ADD CONSTRAINT "tool_gateway_fk" FOREIGN KEY ("gateway_id") REFERENCES "gateway"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "server_tool" ADD CONSTRAINT "server_tool_server_fk" FOREIGN KEY ("server_id") REFERENCES "server"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "server_tool" ADD CONSTRAINT "server_tool_tool_fk" FOREIGN KEY ("tool_id") REFERENCES "tool"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "server_tool" DROP CONSTRAINT "server_tool_tool_fk"');
    await queryRunner.query('ALTER TABLE "server_tool" DROP CONSTRAINT "server_tool_server_fk"');
    await queryRunner.query('ALTER TABLE "tool" DROP CONSTRAINT "tool_gateway_fk"');
    await queryRunner.query('DROP INDEX "public"."server_tool_tool_idx"');
    await queryRunner.query('DROP TABLE "server_tool"');
    await queryRunner.query('DROP INDEX "public"."server_name_uq"');
    await queryRunner.query('DROP TABLE "server"');
    await queryRunner.query('DROP INDEX "public"."gateway_url_uq"');
    await queryRunner.query('DROP INDEX "public"."gateway_slug_uq"');
    await queryRunner.query('DROP INDEX "public"."gateway_name_uq"');
    await queryRunner.query('DROP TABLE "gateway"');
    await queryRunner.query('DROP INDEX "public"."tool_gateway_original_name_uq"');
    await queryRunner.query('DROP INDEX "public"."tool_hash_uq"');
    await queryRunner.query('DROP INDEX "public"."tool_virtual_name_uq"');
    await queryRunner.query('DROP TABLE "tool"');
    await queryRunner.query('DROP TABLE "admin_user"');
  }
}
