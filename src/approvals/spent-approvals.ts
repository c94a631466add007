import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** How often a replica clears out the uses whose states have expired. */
const PURGE_EVERY_MS = 60_000;

/**
 * Sealed input-round states are stateless, so any replica takes a retry; one that lets a call
 * through on a person's yes is single-use all the same. Its id is recorded as it is used, in the
 * database that every replica shares, and a second use, on whichever replica, is refused. A use is
 * kept until its state expires, after which the state is refused anyway.
 */
@Injectable()
export class SpentApprovals {
  private purgedAt = 0;

  constructor(private readonly dataSource: DataSource) {}

  /** True the first time the state is used, false ever after (until it expires). */
  async spend(stateId: string, expiresAt: Date): Promise<boolean> {
    await this.purge();
    const inserted: unknown[] = await this.dataSource.query(
      `INSERT INTO "approval_use" ("state_id", "expires_at") VALUES ($1, $2)
       ON CONFLICT ("state_id") DO NOTHING RETURNING "state_id"`,
      [stateId, expiresAt],
    );
    return inserted.length === 1;
  }

  private async purge(now = Date.now()): Promise<void> {
    if (now - this.purgedAt < PURGE_EVERY_MS) return;
    this.purgedAt = now;
    await this.dataSource.query(`DELETE FROM "approval_use" WHERE "expires_at" <= $1`, [
      new Date(now),
    ]);
  }
}
