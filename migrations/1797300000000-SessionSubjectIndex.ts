import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A principal's sessions by when they were last used: opening a session past
 * `mcp.maxSessionsPerPrincipal` ends its least recently used ones.
 */
export class SessionSubjectIndex1797300000000 implements MigrationInterface {
  name = 'SessionSubjectIndex1797300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "mcp_session_subject_idx" ON "mcp_session" ("subject", "last_seen_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "mcp_session_subject_idx"`);
  }
}
