import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class UpstreamOAuth1795490000000 implements MigrationInterface {
  name = 'UpstreamOAuth1795490000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "upstream_oauth_client" ("gateway_id" uuid NOT NULL, "client_information" text, "discovery" jsonb, "upstream_url" character varying(2048) NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "upstream_oauth_client_pk" PRIMARY KEY ("gateway_id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "upstream_oauth_token" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "gateway_id" uuid NOT NULL, "owner" character varying(64) NOT NULL, "user_id" uuid, "tokens" text, "expires_at" TIMESTAMP WITH TIME ZONE, "refresh_error" text, "refreshed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "upstream_oauth_token_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "upstream_oauth_token_user_idx" ON "upstream_oauth_token" ("user_id") ',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "upstream_oauth_token_owner_uq" ON "upstream_oauth_token" ("gateway_id", "owner") ',
    );
    await queryRunner.query('ALTER TABLE "gateway" ADD "oauth_mode" character varying(24)');
    await queryRunner.query('ALTER TABLE "mcp_session" ADD "user_id" uuid');
    await queryRunner.query(
      'ALTER TABLE "upstream_oauth_client" ADD CONSTRAINT "upstream_oauth_client_gateway_fk" FOREIGN KEY ("gateway_id") REFERENCES "gateway"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "upstream_oauth_token" ADD CONSTRAINT "upstream_oauth_token_gateway_fk" FOREIGN KEY ("gateway_id") REFERENCES "gateway"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "upstream_oauth_token" ADD CONSTRAINT "upstream_oauth_token_user_fk" FOREIGN KEY ("user_id") REFERENCES "app_user"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "upstream_oauth_token" DROP CONSTRAINT "upstream_oauth_token_user_fk"',
    );
    await queryRunner.query(
      'ALTER TABLE "upstream_oauth_token" DROP CONSTRAINT "upstream_oauth_token_gateway_fk"',
    );
    await queryRunner.query(
      'ALTER TABLE "upstream_oauth_client" DROP CONSTRAINT "upstream_oauth_client_gateway_fk"',
    );
    await queryRunner.query('ALTER TABLE "mcp_session" DROP COLUMN "user_id"');
    await queryRunner.query('ALTER TABLE "gateway" DROP COLUMN "oauth_mode"');
    await queryRunner.query('DROP INDEX "public"."upstream_oauth_token_owner_uq"');
    await queryRunner.query('DROP INDEX "public"."upstream_oauth_token_user_idx"');
    await queryRunner.query('DROP TABLE "upstream_oauth_token"');
    await queryRunner.query('DROP TABLE "upstream_oauth_client"');
  }
}
