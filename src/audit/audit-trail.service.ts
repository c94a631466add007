import { randomUUID } from 'node:crypto';
import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type Principal } from '../auth/principal';
import { AuditSettings } from '../config/slices/audit.settings';
import { ReplicaId } from '../events/replica-id';
import { Metrics } from '../observability/metrics';
import { currentRequestId, currentTraceId, markAudited } from '../observability/request-context';
import { AuditEntry } from './audit-entry.entity';
import { errorMessage } from '../common/error-message';
import { isDataRefusal } from '../common/database-errors';
import { BATCH_NAMES, BATCH_RECORD, BATCH_VALUES, storableBatch } from './storable-batch';

/** What a caller says of an entry; the trail adds the id, the time, the request and the replica. */
export type AuditRecord = Pick<AuditEntry, 'kind' | 'action' | 'outcome'> &
  Partial<Omit<AuditEntry, 'id' | 'occurredAt' | 'replica'>>;

/**
 * A batch, as one JSON parameter. `json`, not `jsonb`: read once into rows, it need not be built
 * as a tree first. A plain insert while writes succeed; after a failed one, whose batch may have
 * been written all the same, the batches skip ids already there until a write succeeds again.
 * Together about a fifth less CPU per row on the embedded database than `jsonb` and a speculative
 * insert every time (measured).
 */
const INSERT_BATCH = `INSERT INTO audit_entry (${BATCH_NAMES})
  SELECT ${BATCH_VALUES} FROM json_to_recordset($1::json) AS x(${BATCH_RECORD})`;
const INSERT_BATCH_AGAIN = `${INSERT_BATCH} ON CONFLICT (id) DO NOTHING`;

/** Rows in one INSERT; a bigger buffer is written in several. */
const BATCH_ROWS = 200;
/**
 * Entries kept while the database refuses them; beyond this the oldest are dropped, counted in
 * `portico_audit_entries_dropped_total` and logged, so that an outage of any length costs bounded
 * memory and the newest entries survive it.
 */
const MAX_BUFFERED = 100_000;
/** How often drops and failed writes are logged while they go on. */
const REPORT_EVERY_MS = 10_000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** Rows one prune statement deletes, so that a large backlog never holds a long lock. */
const PRUNE_ROWS = 10_000;

/**
 * An entry's id: a UUID of version 7 (RFC 9562), the time in milliseconds first, then 74 random
 * bits. Every call writes an entry, and such ids go in at the end of the primary key's index
 * instead of anywhere in it, as random (version 4) ones do: 5–15 % less CPU per row on the
 * embedded database (measured), and on PostgreSQL an index that grows at its end instead of
 * splitting pages all through it.
 */
export function entryId(now = Date.now()): string {
  // randomUUID draws from a pool of random bytes; its first 48 bits give way to the time.
  const random = randomUUID();
  const time = now.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}

/** Who acted, as the trail records it. */
export function actor(principal: Principal | undefined): Partial<AuditEntry> {
  if (!principal) return {};
  return {
    subject: principal.subject,
    username: principal.name,
    userId: principal.userId,
    tokenId: principal.tokenId,
    teamIds: [...principal.teamIds],
  };
}

/**
 * The append-only audit trail. `record` only buffers in memory, so the hot path never waits on
 * the database; the buffer is written in bulk every AUDIT_FLUSH_INTERVAL_MS and when the replica
 * stops. A crash loses at most one interval. Ids are made here, so a batch retried after a failed
 * write adds nothing twice (see INSERT_BATCH).
 */
@Injectable()
export class AuditTrail implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(AuditTrail.name);
  private buffer: AuditEntry[] = [];
  private flushing: Promise<void> = Promise.resolve();
  /** A write is queued behind the one under way: another would only repeat it. */
  private flushQueued = false;
  /** Entries dropped so far, so that a write under way knows which of its batch are gone. */
  private dropped = 0;
  private unreportedDrops = 0;
  private droppedReportedAt = 0;
  /** When writes began to fail, and when that was last logged; 0: they succeed. */
  private failingSince = 0;
  private failureReportedAt = 0;
  private flushTimer?: NodeJS.Timeout;
  private pruneTimer?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AuditSettings,
    private readonly replica: ReplicaId,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  onModuleInit(): void {
    this.flushTimer = setInterval(
      () => void this.flush(),
      this.config.audit.flushIntervalMs,
    ).unref();
    if (this.config.audit.retentionDays > 0) {
      this.pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS).unref();
      setTimeout(() => void this.prune(), 5000).unref();
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.flushTimer);
    clearInterval(this.pruneTimer);
    await this.flush();
  }

  record(entry: AuditRecord): void {
    if (entry.kind !== 'mcp') markAudited();
    this.buffer.push(this.entryOf(entry));
    if (this.buffer.length > MAX_BUFFERED) this.dropOldest(this.buffer.length - MAX_BUFFERED);
    this.metrics?.auditBuffered.set(this.buffer.length);
  }

  /** What a record says, with nothing for what it leaves out and the trail's own parts added. */
  private entryOf(entry: AuditRecord): AuditEntry {
    return {
      subject: null,
      username: null,
      userId: null,
      tokenId: null,
      teamIds: [],
      clientName: null,
      serverId: null,
      gateway: null,
      target: null,
      argumentsDigest: null,
      arguments: null,
      detail: null,
      approval: null,
      task: null,
      actedBy: null,
      status: null,
      durationMs: null,
      requestId: currentRequestId(),
      traceId: currentTraceId(),
      ...entry,
      id: entryId(),
      occurredAt: new Date(),
      replica: this.replica.value,
    };
  }

  /** Writes what is buffered; one flush at a time, so entries keep their order. */
  flush(): Promise<void> {
    if (this.flushQueued) return this.flushing;
    this.flushQueued = true;
    this.flushing = this.flushing.then(() => {
      this.flushQueued = false;
      return this.write();
    });
    return this.flushing;
  }

  private dropOldest(count: number): void {
    this.buffer.splice(0, count);
    this.dropped += count;
    this.metrics?.auditDropped.inc(count);
    this.unreportedDrops += count;
    const now = Date.now();
    if (now - this.droppedReportedAt < REPORT_EVERY_MS) return;
    this.logger.error(
      `Audit buffer full (${MAX_BUFFERED} entries) while the database refuses them: ${this.unreportedDrops} oldest entries dropped`,
    );
    this.droppedReportedAt = now;
    this.unreportedDrops = 0;
  }

  /**
   * Writes the entries buffered when it began. Those recorded meanwhile wait for the next write: a
   * busy replica that chased its buffer would write small batches back to back, and a statement
   * costs about as much as fifty rows on the embedded database.
   */
  private async write(): Promise<void> {
    let due = this.buffer.length;
    while (due > 0) {
      const batch = this.buffer.slice(0, Math.min(due, BATCH_ROWS));
      const droppedBefore = this.dropped;
      try {
        const refused = await this.refusal(batch);
        if (refused !== null) await this.insertEachAlone(batch, refused);
      } catch (error) {
        this.writeFailed(error);
        return;
      }
      // Entries dropped meanwhile were the oldest: the front of this very batch, and beyond it.
      const dropped = this.dropped - droppedBefore;
      this.buffer.splice(0, Math.max(0, batch.length - dropped));
      due -= Math.max(batch.length, dropped);
      this.metrics?.auditBuffered.set(this.buffer.length);
      if (this.failingSince !== 0) {
        this.logger.log(
          `Writing the audit trail again after ${Math.round((Date.now() - this.failingSince) / 1000)} s`,
        );
        this.failingSince = 0;
      }
    }
  }

  /**
   * Inserts the entries in one statement: plainly, or skipping ids written already while writes
   * fail. Resolves to the database's refusal of what they carry, or null; throws anything else.
   */
  private async refusal(entries: readonly AuditEntry[]): Promise<unknown> {
    try {
      // One JSON parameter for the whole batch: far cheaper to build than a row of parameters
      // per entry, which matters when the database runs in this process (PGlite).
      await this.dataSource.query(this.failingSince === 0 ? INSERT_BATCH : INSERT_BATCH_AGAIN, [
        storableBatch(entries),
      ]);
      return null;
    } catch (error) {
      if (isDataRefusal(error)) return error;
      throw error;
    }
  }

  /**
   * A batch the database refused for what an entry carried, written entry by entry, so that one
   * entry cannot hold back the others. An entry refused alone is kept as when, what, by which user
   * or token and how it ended, its `detail` saying why; one refused even so is dropped and counted.
   */
  private async insertEachAlone(batch: readonly AuditEntry[], refusal: unknown): Promise<void> {
    this.logger.error(`The database refused a batch of the audit trail: ${errorMessage(refusal)}`);
    for (const entry of batch) {
      const refused = await this.refusal([entry]);
      if (refused === null) continue;
      const { kind, action, outcome, status, durationMs, userId, tokenId } = entry;
      const kept = this.entryOf({
        kind,
        action,
        outcome,
        status,
        durationMs,
        userId,
        tokenId,
        detail: `not stored as recorded: ${errorMessage(refused)}`,
        requestId: null,
        traceId: null,
      });
      const note = { ...kept, id: entry.id, occurredAt: entry.occurredAt };
      if ((await this.refusal([note])) === null) continue;
      this.metrics?.auditDropped.inc();
      this.logger.error(`Dropped audit entry ${entry.id}, which the database refused`);
    }
  }

  private writeFailed(error: unknown): void {
    const now = Date.now();
    if (this.failingSince === 0) this.failingSince = now;
    else if (now - this.failureReportedAt < REPORT_EVERY_MS) return;
    this.failureReportedAt = now;
    this.logger.warn(
      `Could not write the audit trail, will retry; ${this.buffer.length} entries buffered: ${errorMessage(error)}`,
    );
  }

  /** Deletes entries older than AUDIT_RETENTION_DAYS; every replica may run it, it is idempotent. */
  async prune(): Promise<number> {
    let deleted = 0;
    try {
      for (;;) {
        const [, count] = await this.dataSource.query<[unknown, number]>(
          `DELETE FROM audit_entry WHERE id IN (
             SELECT id FROM audit_entry WHERE occurred_at < now() - make_interval(days => $1)
              LIMIT ${PRUNE_ROWS})`,
          [this.config.audit.retentionDays],
        );
        deleted += count;
        if (count < PRUNE_ROWS) return deleted;
      }
    } catch (error) {
      this.logger.warn(`Could not prune the audit trail: ${(error as Error).message}`);
      return deleted;
    }
  }
}
