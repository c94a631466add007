import { Injectable } from '@nestjs/common';
import { DataSource, LessThanOrEqual } from 'typeorm';
import { ApprovalUse } from './approval-use.entity';

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
    const uses = this.dataSource.getRepository(ApprovalUse);
    const now = Date.now();
    if (now - this.purgedAt >= PURGE_EVERY_MS) {
      this.purgedAt = now;
      await uses.delete({ expiresAt: LessThanOrEqual(new Date(now)) });
    }
    // ON CONFLICT DO NOTHING: only the first use returns its row, on whichever replica.
    const inserted = await uses
      .createQueryBuilder()
      .insert()
      .values({ stateId, expiresAt })
      .orIgnore()
      .returning('state_id')
      .execute();
    return (inserted.raw as unknown[]).length === 1;
  }
}
