import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Tool vectors of the embeddings provider. The column is pgvector's `vector` where the extension
 * can be had (PGlite ships it; a PostgreSQL server needs the package and the right to create it),
 * else `real[]`: the vectors are ranked in memory either way, and a server without pgvector must
 * still start.
 */
export class ToolEmbeddings1795460000000 implements MigrationInterface {
  name = 'ToolEmbeddings1795460000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DO $$
      BEGIN
        IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
          BEGIN
            CREATE EXTENSION IF NOT EXISTS vector;
          EXCEPTION WHEN insufficient_privilege THEN
            RAISE NOTICE 'pgvector is available but may not be created here; using real[]';
          END;
        END IF;
        IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
          EXECUTE 'CREATE TABLE "tool_embedding" ("model" character varying(200) NOT NULL, "content_hash" character(64) NOT NULL, "dimensions" integer NOT NULL, "embedding" vector NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "tool_embedding_pk" PRIMARY KEY ("model", "content_hash"))';
        ELSE
          EXECUTE 'CREATE TABLE "tool_embedding" ("model" character varying(200) NOT NULL, "content_hash" character(64) NOT NULL, "dimensions" integer NOT NULL, "embedding" real[] NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "tool_embedding_pk" PRIMARY KEY ("model", "content_hash"))';
        END IF;
      END
      $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "tool_embedding"');
  }
}
