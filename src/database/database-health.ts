import { Logger } from '@nestjs/common';
import { Client, type Pool } from 'pg';
import { DatabaseUnreachableError } from './database-errors';

/** How often the database is probed while it answers, and while it does not. */
const PROBE_EVERY_MS = 2000;
const PROBE_DOWN_EVERY_MS = 1000;
/** A probe (connect and `SELECT 1` on a connection of its own) that takes longer has failed. */
const PROBE_TIMEOUT_MS = 2000;
/** Failed probes in a row that make the database unavailable: one slow probe on a busy host is not. */
const FAILURES_TO_OPEN = 2;

/**
 * Whether PostgreSQL answers, as a probe of its own finds it. A partitioned database answers no
 * query, and every request that needs one would wait out the connect or query timeout; while the
 * probe fails, the pool refuses at once instead and its connections are ended, so that what needs the database gets 503 in
 * milliseconds and what caches hold keeps serving. The probe uses its own short-lived connection,
 * never one of the pool's, and runs `SELECT 1` on it.
 */
export class DatabaseHealth {
  private readonly logger = new Logger('Database');
  private failures = 0;
  private downSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The pool's connections: ended when the database is found gone, so nothing waits on them. */
  private readonly clients = new Set<Client>();

  constructor(private readonly probe: () => Promise<void>) {}

  /** A probe of `url`: connect and `SELECT 1` within PROBE_TIMEOUT_MS, on a connection of its own. */
  static probing(url: string): DatabaseHealth {
    return new DatabaseHealth(async () => {
      const client = new Client({
        connectionString: url,
        connectionTimeoutMillis: PROBE_TIMEOUT_MS,
        query_timeout: PROBE_TIMEOUT_MS,
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
      } finally {
        void client.end().catch(() => undefined);
      }
    });
  }

  get available(): boolean {
    return this.downSince === null;
  }

  start(): void {
    this.schedule(PROBE_EVERY_MS);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Runs one probe now and records what it found. */
  async check(): Promise<void> {
    try {
      await this.probe();
      if (this.downSince !== null)
        this.logger.log(
          `The database answers again after ${Math.round((Date.now() - this.downSince) / 1000)} s`,
        );
      this.failures = 0;
      this.downSince = null;
    } catch (error) {
      this.failures += 1;
      if (this.failures < FAILURES_TO_OPEN || this.downSince !== null) return;
      this.downSince = Date.now();
      // A query on a partitioned connection would wait out the query timeout: end them all now.
      for (const client of this.clients) client.connection.stream.destroy();
      this.logger.warn(
        `The database does not answer (${error instanceof Error ? error.message : String(error)}); requests that need it fail at once until it does`,
      );
    }
  }

  /** A connection of the pool, ended with the others when the database is found gone. */
  adopt(client: Client): void {
    this.clients.add(client);
    client.once('end', () => this.clients.delete(client));
  }

  /**
   * Makes `pool` refuse at once while the database does not answer. TypeORM asks the pool with a
   * callback, others with a promise; both are answered with the same error.
   */
  guard(pool: Pool): void {
    const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { connect: (...args: unknown[]) => unknown }).connect = (...args) => {
      if (this.available) return connect(...args);
      const refused = new DatabaseUnreachableError();
      const callback = args[0];
      if (typeof callback === 'function') {
        process.nextTick(() => (callback as (error: Error) => void)(refused));
        return undefined;
      }
      return Promise.reject(refused);
    };
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.check().then(() =>
        this.schedule(this.available ? PROBE_EVERY_MS : PROBE_DOWN_EVERY_MS),
      );
    }, ms);
    this.timer.unref();
  }
}
