import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A rate limit names its tool by gateway and upstream name instead of by the tool's row, which a
 * sync deletes when the upstream stops listing the tool (and the limit went with it). Existing
 * limits keep their tool; they go with its gateway.
 */
export class RateLimitToolIdentity1797100000000 implements MigrationInterface {
  name = 'RateLimitToolIdentity1797100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "rate_limit" ADD "gateway_id" uuid`);
    await queryRunner.query(`ALTER TABLE "rate_limit" ADD "tool_name" character varying(128)`);
    await queryRunner.query(
      `UPDATE "rate_limit" AS l SET "gateway_id" = t."gateway_id", "tool_name" = t."original_name"
       FROM "tool" AS t WHERE t."id" = l."tool_id"`,
    );
    await queryRunner.query(`ALTER TABLE "rate_limit" DROP CONSTRAINT "rate_limit_tool_fk"`);
    await queryRunner.query(`DROP INDEX "rate_limit_tool_idx"`);
    await queryRunner.query(`ALTER TABLE "rate_limit" DROP COLUMN "tool_id"`);
    await queryRunner.query(
      `CREATE INDEX "rate_limit_tool_idx" ON "rate_limit" ("gateway_id", "tool_name")`,
    );
    await queryRunner.query(
      `ALTER TABLE "rate_limit" ADD CONSTRAINT "rate_limit_tool_check" CHECK (("gateway_id" IS NULL) = ("tool_name" IS NULL))`,
    );
    await queryRunner.query(
      `ALTER TABLE "rate_limit" ADD CONSTRAINT "rate_limit_gateway_fk" FOREIGN KEY ("gateway_id") REFERENCES "gateway"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "rate_limit" ADD "tool_id" uuid`);
    await queryRunner.query(
      `UPDATE "rate_limit" AS l SET "tool_id" = t."id"
       FROM "tool" AS t WHERE t."gateway_id" = l."gateway_id" AND t."original_name" = l."tool_name"`,
    );
    // A limit whose tool is away has no row to point at; it would count every tool.
    await queryRunner.query(
      `DELETE FROM "rate_limit" WHERE "tool_name" IS NOT NULL AND "tool_id" IS NULL`,
    );
    await queryRunner.query(`ALTER TABLE "rate_limit" DROP CONSTRAINT "rate_limit_gateway_fk"`);
    await queryRunner.query(`ALTER TABLE "rate_limit" DROP CONSTRAINT "rate_limit_tool_check"`);
    await queryRunner.query(`DROP INDEX "rate_limit_tool_idx"`);
    await queryRunner.query(`ALTER TABLE "rate_limit" DROP COLUMN "tool_name"`);
    await queryRunner.query(`ALTER TABLE "rate_limit" DROP COLUMN "gateway_id"`);
    await queryRunner.query(`CREATE INDEX "rate_limit_tool_idx" ON "rate_limit" ("tool_id")`);
    await queryRunner.query(
      `ALTER TABLE "rate_limit" ADD CONSTRAINT "rate_limit_tool_fk" FOREIGN KEY ("tool_id") REFERENCES "tool"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }
}
