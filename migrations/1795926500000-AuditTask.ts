import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The task of a Tasks-extension operation on its audit entry: the tools/call that made the task
 * and each tasks/* call of it share one reference, so the trail shows a task's calls as one.
 */
export class AuditTask1795926500000 implements MigrationInterface {
  name = 'AuditTask1795926500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "audit_entry" ADD "task" character varying(32)');
    await queryRunner.query(
      'CREATE INDEX "audit_entry_task_idx" ON "audit_entry" ("task", "occurred_at") WHERE "task" IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "audit_entry_task_idx"');
    await queryRunner.query('ALTER TABLE "audit_entry" DROP COLUMN "task"');
  }
}
