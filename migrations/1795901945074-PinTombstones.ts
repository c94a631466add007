import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Pins that outlive their entry's absence: a tombstone for each tool, prompt or resource template
 * that left its upstream while pinned, rejected or disabled, and per gateway the keys of the
 * tombstones dropped for room; both go with their gateway.
 */
export class PinTombstones1795901945074 implements MigrationInterface {
  name = 'PinTombstones1795901945074';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pin_forgotten" ("gateway_id" uuid NOT NULL, "keys" bytea NOT NULL, "dropped" integer NOT NULL, CONSTRAINT "pin_forgotten_pk" PRIMARY KEY ("gateway_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "pin_tombstone" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "gateway_id" uuid NOT NULL, "kind" character varying(24) NOT NULL, "key" text NOT NULL, "pinned_hash" character varying(64), "rejected_hash" character varying(64), "enabled" boolean NOT NULL, "content_hash" character varying(64) NOT NULL, "definition" jsonb, "shape" character varying(64) NOT NULL, "body" character varying(64) NOT NULL, "removed_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "pin_tombstone_pk" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "pin_tombstone_shape_idx" ON "pin_tombstone" ("gateway_id", "kind", "shape")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "pin_tombstone_key_uq" ON "pin_tombstone" ("gateway_id", "kind", "key")`,
    );
    await queryRunner.query(
      `ALTER TABLE "pin_forgotten" ADD CONSTRAINT "pin_forgotten_gateway_fk" FOREIGN KEY ("gateway_id") REFERENCES "gateway"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "pin_tombstone" ADD CONSTRAINT "pin_tombstone_gateway_fk" FOREIGN KEY ("gateway_id") REFERENCES "gateway"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "pin_tombstone"`);
    await queryRunner.query(`DROP TABLE "pin_forgotten"`);
  }
}
