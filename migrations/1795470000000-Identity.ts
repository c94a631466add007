import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class Identity1795470000000 implements MigrationInterface {
  name = 'Identity1795470000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "team" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(200) NOT NULL, "description" text NOT NULL DEFAULT \'\', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "team_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query('CREATE UNIQUE INDEX "team_name_uq" ON "team" ("name") ');
    await queryRunner.query(
      'CREATE TABLE "oauth_client" ("client_id" character varying(64) NOT NULL, "client_secret" text, "client_secret_expires_at" TIMESTAMP WITH TIME ZONE, "metadata" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "oauth_client_pk" PRIMARY KEY ("client_id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "app_user" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "username" character varying(128) NOT NULL, "display_name" character varying(200) NOT NULL DEFAULT \'\', "password_hash" text, "role" character varying(16) NOT NULL DEFAULT \'member\', "source" character varying(16) NOT NULL DEFAULT \'local\', "external_issuer" character varying(2048), "external_subject" character varying(255), "disabled" boolean NOT NULL DEFAULT false, "last_login_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "app_user_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "app_user_username_uq" ON "app_user" ("username") ',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "app_user_external_uq" ON "app_user" ("external_issuer", "external_subject") ',
    );
    await queryRunner.query(
      'CREATE TABLE "oauth_grant" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "client_id" character varying(64) NOT NULL, "user_id" uuid NOT NULL, "resource" text NOT NULL, "scope" text NOT NULL DEFAULT \'\', "revoked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "oauth_grant_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "oauth_grant_client_idx" ON "oauth_grant" ("client_id") ',
    );
    await queryRunner.query('CREATE INDEX "oauth_grant_user_idx" ON "oauth_grant" ("user_id") ');
    await queryRunner.query(
      'CREATE TABLE "oauth_code" ("code_hash" character(64) NOT NULL, "grant_id" uuid NOT NULL, "redirect_uri" text NOT NULL, "code_challenge" character varying(128) NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "oauth_code_pk" PRIMARY KEY ("code_hash"))',
    );
    await queryRunner.query('CREATE INDEX "oauth_code_grant_idx" ON "oauth_code" ("grant_id") ');
    await queryRunner.query(
      'CREATE TABLE "oauth_refresh_token" ("token_hash" character(64) NOT NULL, "grant_id" uuid NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "oauth_refresh_token_pk" PRIMARY KEY ("token_hash"))',
    );
    await queryRunner.query(
      'CREATE INDEX "oauth_refresh_token_grant_idx" ON "oauth_refresh_token" ("grant_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "team_member" ("team_id" uuid NOT NULL, "user_id" uuid NOT NULL, CONSTRAINT "team_member_pk" PRIMARY KEY ("team_id", "user_id"))',
    );
    await queryRunner.query('CREATE INDEX "team_member_user_idx" ON "team_member" ("user_id") ');
    await queryRunner.query(
      'CREATE TABLE "api_token" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(200) NOT NULL, "prefix" character varying(16) NOT NULL, "token_hash" character(64) NOT NULL, "owner_id" uuid NOT NULL, "role" character varying(16), "server_ids" uuid array, "expires_at" TIMESTAMP WITH TIME ZONE, "last_used_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "api_token_pk" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "api_token_hash_uq" ON "api_token" ("token_hash") ',
    );
    await queryRunner.query('CREATE INDEX "api_token_owner_idx" ON "api_token" ("owner_id") ');
    await queryRunner.query('ALTER TABLE "gateway" ADD "team_id" uuid');
    await queryRunner.query('ALTER TABLE "server" ADD "team_id" uuid');
    await queryRunner.query('CREATE INDEX "gateway_team_idx" ON "gateway" ("team_id") ');
    await queryRunner.query('CREATE INDEX "server_team_idx" ON "server" ("team_id") ');
    await queryRunner.query(
      'ALTER TABLE "gateway" ADD CONSTRAINT "gateway_team_fk" FOREIGN KEY ("team_id") REFERENCES "team"("id") ON DELETE RESTRICT ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "server" ADD CONSTRAINT "server_team_fk" FOREIGN KEY ("team_id") REFERENCES "team"("id") ON DELETE RESTRICT ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth_grant" ADD CONSTRAINT "oauth_grant_client_fk" FOREIGN KEY ("client_id") REFERENCES "oauth_client"("client_id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth_grant" ADD CONSTRAINT "oauth_grant_user_fk" FOREIGN KEY ("user_id") REFERENCES "app_user"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth_code" ADD CONSTRAINT "oauth_code_grant_fk" FOREIGN KEY ("grant_id") REFERENCES "oauth_grant"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "oauth_refresh_token" ADD CONSTRAINT "oauth_refresh_token_grant_fk" FOREIGN KEY ("grant_id") REFERENCES "oauth_grant"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "team_member" ADD CONSTRAINT "team_member_team_fk" FOREIGN KEY ("team_id") REFERENCES "team"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "team_member" ADD CONSTRAINT "team_member_user_fk" FOREIGN KEY ("user_id") REFERENCES "app_user"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "api_token" ADD CONSTRAINT "api_token_owner_fk" FOREIGN KEY ("owner_id") REFERENCES "app_user"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    // The wave-1 admin account becomes the first user, with its password hash and dates.
    await queryRunner.query(
      `INSERT INTO "app_user" ("username", "password_hash", "role", "source", "created_at", "updated_at")
       SELECT "username", "password_hash", 'admin', 'local', "created_at", "updated_at" FROM "admin_user"`,
    );
    await queryRunner.query('DROP TABLE "admin_user"');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "admin_user" ("username" character varying(128) NOT NULL, "password_hash" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "admin_user_pk" PRIMARY KEY ("username"))',
    );
    await queryRunner.query(
      `INSERT INTO "admin_user" ("username", "password_hash", "created_at", "updated_at")
       SELECT "username", "password_hash", "created_at", "updated_at" FROM "app_user"
        WHERE "role" = 'admin' AND "password_hash" IS NOT NULL`,
    );
    await queryRunner.query('ALTER TABLE "api_token" DROP CONSTRAINT "api_token_owner_fk"');
    await queryRunner.query('ALTER TABLE "team_member" DROP CONSTRAINT "team_member_user_fk"');
    await queryRunner.query('ALTER TABLE "team_member" DROP CONSTRAINT "team_member_team_fk"');
    await queryRunner.query(
      'ALTER TABLE "oauth_refresh_token" DROP CONSTRAINT "oauth_refresh_token_grant_fk"',
    );
    await queryRunner.query('ALTER TABLE "oauth_code" DROP CONSTRAINT "oauth_code_grant_fk"');
    await queryRunner.query('ALTER TABLE "oauth_grant" DROP CONSTRAINT "oauth_grant_user_fk"');
    await queryRunner.query('ALTER TABLE "oauth_grant" DROP CONSTRAINT "oauth_grant_client_fk"');
    await queryRunner.query('ALTER TABLE "server" DROP CONSTRAINT "server_team_fk"');
    await queryRunner.query('ALTER TABLE "gateway" DROP CONSTRAINT "gateway_team_fk"');
    await queryRunner.query('DROP INDEX "public"."server_team_idx"');
    await queryRunner.query('DROP INDEX "public"."gateway_team_idx"');
    await queryRunner.query('ALTER TABLE "server" DROP COLUMN "team_id"');
    await queryRunner.query('ALTER TABLE "gateway" DROP COLUMN "team_id"');
    await queryRunner.query('DROP INDEX "public"."api_token_owner_idx"');
    await queryRunner.query('DROP INDEX "public"."api_token_hash_uq"');
    await queryRunner.query('DROP TABLE "api_token"');
    await queryRunner.query('DROP INDEX "public"."team_member_user_idx"');
    await queryRunner.query('DROP TABLE "team_member"');
    await queryRunner.query('DROP INDEX "public"."oauth_refresh_token_grant_idx"');
    await queryRunner.query('DROP TABLE "oauth_refresh_token"');
    await queryRunner.query('DROP INDEX "public"."oauth_code_grant_idx"');
    await queryRunner.query('DROP TABLE "oauth_code"');
    await queryRunner.query('DROP INDEX "public"."oauth_grant_user_idx"');
    await queryRunner.query('DROP INDEX "public"."oauth_grant_client_idx"');
    await queryRunner.query('DROP TABLE "oauth_grant"');
    await queryRunner.query('DROP INDEX "public"."app_user_external_uq"');
    await queryRunner.query('DROP INDEX "public"."app_user_username_uq"');
    await queryRunner.query('DROP TABLE "app_user"');
    await queryRunner.query('DROP TABLE "oauth_client"');
    await queryRunner.query('DROP INDEX "public"."team_name_uq"');
    await queryRunner.query('DROP TABLE "team"');
  }
}
