import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { errorMessage } from '../common/error-message';
import {
  EMBEDDED_POSTGRES,
  type EmbeddedPostgres,
  TEMPLATE_FREEZE_AGE,
  TEMPLATES_AGE,
} from './embedded-postgres';

/** How often the tables are looked at: autovacuum's own `autovacuum_naptime`. */
const UPKEEP_EVERY_MS = 60_000;
/** How often a round ends with a checkpoint: PostgreSQL's own `checkpoint_timeout`. */
const CHECKPOINT_EVERY_MS = 5 * 60_000;
/**
 * How long a table whose upkeep failed (its statement ran past its time) is left alone, and how
 * often a warning that a restart is due is repeated.
 */
const RETRY_AFTER_MS = 60 * 60 * 1000;
/** The age of its oldest transaction id at which PostgreSQL stops taking writes, about. */
const WRAPAROUND_AGE = 2_147_000_000;

/**
 * The tables due, by autovacuum's default rules: a vacuum once a table's dead rows pass 50 and a
 * fifth of its live ones, or its rows inserted since the last vacuum 1,000 and a fifth (an
 * insert-only table, the audit trail, then has its pages marked all-visible as it grows, and the
 * vacuum that freezes it later has less to read); an analyze once its changes since the last pass
 * 50 and a tenth; and a vacuum of any table, system catalogues included, whose oldest unfrozen
 * transaction id is older than `vacuum_freeze_table_age` (150 million): that vacuum freezes the
 * whole table, and without it PostgreSQL stops taking writes once the database's oldest id is two
 * billion old.
 */
const DUE_TABLES = `
  SELECT name, dead, vacuum FROM (
    SELECT format('%I.%I', n.nspname, c.relname) AS name,
           coalesce(s.n_dead_tup, 0) AS dead,
           (s.n_dead_tup > 50 + 0.2 * s.n_live_tup
             OR s.n_ins_since_vacuum > 1000 + 0.2 * s.n_live_tup
             OR age(c.relfrozenxid) > current_setting('vacuum_freeze_table_age')::int) AS vacuum,
           s.n_mod_since_analyze > 50 + 0.1 * s.n_live_tup AS stale
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
     WHERE c.relkind IN ('r', 'm') AND c.relpersistence <> 't'
  ) tables
  WHERE vacuum OR stale`;

interface DueTable {
  name: string;
  dead: string;
  vacuum: boolean;
}

/**
 * The work of autovacuum and of the checkpointer on the embedded database, which has neither:
 * PGlite runs one backend and no background processes. Without it every updated or deleted row
 * stayed in its table and indexes for good (30,000 MCP sessions opened and ended left 12 MB of
 * dead rows in a table of 1,000 live ones, and each session opened slower than the last), the
 * planner kept the statistics of an empty database, the transaction ids, never frozen, ran towards
 * the limit at which PostgreSQL stops writing, and the write-ahead log grew from start to stop
 * (a checkpoint only came with a clean stop), all of it to be replayed after a crash. Each due
 * table gets a statement of its own, so the connections waiting for the embedded database's one
 * session (see embedded-socket.ts) take their turns between tables. On PostgreSQL nothing runs.
 */
@Injectable()
export class EmbeddedUpkeep implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Database');
  private timer?: NodeJS.Timeout;
  private round: Promise<void> | null = null;
  /** Tables whose upkeep failed, by name, with when: each is left alone for RETRY_AFTER_MS. */
  private readonly failed = new Map<string, number>();
  private warnedAt = -Infinity;
  private checkpointedAt = -Infinity;
  /**
   * The age of the template databases, which only a start freezes, past which each hour's first
   * round says a restart is due: five times the age at which a start freezes them.
   */
  protected readonly templateWarnAge = 5 * TEMPLATE_FREEZE_AGE;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(EMBEDDED_POSTGRES) private readonly embedded: EmbeddedPostgres | null,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.embedded) return;
    this.timer = setInterval(() => void this.run(), UPKEEP_EVERY_MS).unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.round;
  }

  /** One round over the due tables; a round still under way is joined, not repeated. */
  run(): Promise<void> {
    this.round ??= this.tend().finally(() => (this.round = null));
    return this.round;
  }

  private async tend(): Promise<void> {
    let due: DueTable[];
    let templates: { age: number }[];
    try {
      // The backend sends its counts of changed rows at most once a second: the last second's too.
      await this.dataSource.query('SELECT pg_stat_force_next_flush()');
      due = await this.dataSource.query<DueTable[]>(DUE_TABLES);
      templates = await this.dataSource.query<{ age: number }[]>(TEMPLATES_AGE);
    } catch (error) {
      this.logger.warn(`Could not read which tables need a vacuum: ${errorMessage(error)}`);
      return;
    }
    const now = Date.now();
    const templateAge = templates[0]?.age ?? 0;
    if (templateAge > this.templateWarnAge && now - this.warnedAt >= RETRY_AFTER_MS) {
      this.warnedAt = now;
      this.logger.warn(
        `The embedded database's template databases are ${templateAge} transaction ids old; PostgreSQL stops taking writes at about ${WRAPAROUND_AGE}. Restart Portico: it freezes them as it starts.`,
      );
    }
    for (const table of due) {
      if (now - (this.failed.get(table.name) ?? -Infinity) < RETRY_AFTER_MS) continue;
      const statement = table.vacuum ? `VACUUM (ANALYZE) ${table.name}` : `ANALYZE ${table.name}`;
      try {
        await this.dataSource.query(statement);
        this.failed.delete(table.name);
        if (table.vacuum) this.logger.debug(`Vacuumed ${table.name} (${table.dead} dead rows)`);
      } catch (error) {
        this.failed.set(table.name, Date.now());
        this.logger.warn(`${statement} failed, tried again in an hour: ${errorMessage(error)}`);
      }
    }
    if (now - this.checkpointedAt < CHECKPOINT_EVERY_MS) return;
    try {
      await this.dataSource.query('CHECKPOINT');
      this.checkpointedAt = now;
    } catch (error) {
      this.logger.warn(`CHECKPOINT failed: ${errorMessage(error)}`);
    }
  }
}
