import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource, LessThanOrEqual, MoreThan } from 'typeorm';
import { EventBus } from '../events/event-bus';
import { ApprovalGrant } from './approval-grant.entity';
import { errorMessage } from '../common/error-message';

/** Remembered yeses one replica keeps; beyond it the soonest to expire are forgotten first. */
const MAX_REMEMBERED = 100_000;

function keyOf(subject: string, toolId: string, policyId: string, revision: string): string {
  return `${subject}\0${toolId}\0${policyId}\0${revision}`;
}

/**
 * The remembered approvals, in memory on every replica, so that a call checks one without a
 * database round trip. A yes is bound to the policy's revision as it asked: once the policy is
 * edited (what it holds, or how it asks), its people are asked again. A yes is stored, then published on the bus; a revocation makes every
 * replica read the valid ones again. Until a starting replica has read them (or if the database
 * is down then), it remembers nothing: people are asked again, which is the safe side.
 */
@Injectable()
export class RememberedApprovals implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RememberedApprovals.name);
  /** Expiry (epoch ms) by subject, tool and policy. */
  private readonly until = new Map<string, number>();
  private unsubscribe?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (event.type !== 'approvals.changed') return;
      if (event.granted) this.keep(event.granted);
      else void this.reload();
    });
    // Read in the background: start-up waits for nothing, and until then people are asked.
    void this.reload();
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** Until when (epoch ms) this principal's yes for the tool under the policy holds, if it does. */
  validUntil(
    subject: string,
    toolId: string,
    policyId: string,
    revision: string,
    now = Date.now(),
  ): number | null {
    const key = keyOf(subject, toolId, policyId, revision);
    const until = this.until.get(key);
    if (until === undefined) return null;
    if (until > now) return until;
    this.until.delete(key);
    return null;
  }

  async remember(grant: {
    subject: string;
    username: string;
    toolId: string;
    policy: { id: string; name: string };
    revision: string;
    expiresAt: Date;
  }): Promise<void> {
    const grants = this.dataSource.getRepository(ApprovalGrant);
    const key = {
      subject: grant.subject,
      toolId: grant.toolId,
      policyId: grant.policy.id,
      policyRevision: grant.revision,
    };
    // Expired ones are of no use to anyone: each new yes clears them out, and the yes it renews
    // (one row a key: many rows of one yes listed it as many, and revoking one left the rest).
    await grants.delete({ expiresAt: LessThanOrEqual(new Date()) });
    await grants.delete(key);
    await grants.insert({
      ...key,
      username: grant.username.slice(0, 255),
      policyName: grant.policy.name.slice(0, 128),
      expiresAt: grant.expiresAt,
    });
    await this.bus.publish({
      type: 'approvals.changed',
      granted: {
        subject: grant.subject,
        toolId: grant.toolId,
        policyId: grant.policy.id,
        policyRevision: grant.revision,
        expiresAt: grant.expiresAt.getTime(),
      },
    });
  }

  /** Valid remembered approvals, soonest to expire first. */
  list(): Promise<ApprovalGrant[]> {
    return this.dataSource
      .getRepository(ApprovalGrant)
      .find({ where: { expiresAt: MoreThan(new Date()) }, order: { expiresAt: 'ASC' } });
  }

  /**
   * Forgets one, and any other row of the same yes (racing yeses may store two); false when there
   * was none. Every replica forgets it at once.
   */
  async revoke(id: string): Promise<boolean> {
    const grants = this.dataSource.getRepository(ApprovalGrant);
    const row = await grants.findOneBy({ id });
    if (!row) return false;
    const { subject, toolId, policyId, policyRevision } = row;
    await grants.delete({ subject, toolId, policyId, policyRevision });
    // Forgotten here before the answer; the other replicas as the bus reaches them.
    await this.reload();
    await this.bus.publish({ type: 'approvals.changed' });
    return true;
  }

  private keep(grant: {
    subject: string;
    toolId: string;
    policyId: string;
    policyRevision: string;
    expiresAt: number;
  }) {
    const key = keyOf(grant.subject, grant.toolId, grant.policyId, grant.policyRevision);
    this.until.set(key, Math.max(this.until.get(key) ?? 0, grant.expiresAt));
    if (this.until.size > MAX_REMEMBERED) this.forgetSoonest();
  }

  private forgetSoonest(): void {
    const now = Date.now();
    for (const [key, until] of this.until) if (until <= now) this.until.delete(key);
    const excess = this.until.size - MAX_REMEMBERED;
    if (excess <= 0) return;
    const soonest = [...this.until].sort((a, b) => a[1] - b[1]).slice(0, excess);
    for (const [key] of soonest) this.until.delete(key);
  }

  private async reload(): Promise<void> {
    try {
      const grants = await this.dataSource.getRepository(ApprovalGrant).find({
        select: {
          subject: true,
          toolId: true,
          policyId: true,
          policyRevision: true,
          expiresAt: true,
        },
        where: { expiresAt: MoreThan(new Date()) },
        order: { expiresAt: 'DESC' },
        take: MAX_REMEMBERED,
      });
      this.until.clear();
      for (const grant of grants) this.keep({ ...grant, expiresAt: grant.expiresAt.getTime() });
    } catch (error) {
      this.logger.warn(
        `Remembered approvals not read (people are asked again): ${errorMessage(error)}`,
      );
    }
  }
}
