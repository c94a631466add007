import { Logger } from '@nestjs/common';
import { Client, type Pool } from 'pg';
import { DatabaseUnreachableError } from '../common/database-errors';
import { errorMessage } from '../common/error-message';

/** How often the database is probed; a failed probe is tried again at once. */
const PROBE_EVERY_MS = 1000;
/** A probe (`SELECT 1`, and connecting when it must) that takes longer has failed. */
const PROBE_TIMEOUT_MS = 1500;
/** Failed probes in a row that make the database unavailable: one slow probe on a busy host is not. */
const FAILURES_TO_OPEN = 2;

/**
 * Whether PostgreSQL answers, as a probe of its own finds it. A partitioned database answers no
 * query, and every request that needs one would wait out the connect or query timeout; while the
 * probe fails, the pool refuses at once instead and its connections are ended, so that what needs the database gets 503 in
 * milliseconds and what caches hold keeps serving. The probe uses a connection of its own, never
 * one of the pool's, and runs `SELECT 1` on it every second.
 */
export class DatabaseHealth {
  private readonly logger = new Logger('Database');
  private failures = 0;
  private downSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The pool's connections: ended when the database is found gone, so nothing waits on them. */
  private readonly clients = new Set<Client>();

  constructor(
    private readonly probe: () => Promise<void>,
    /** Ends what the probe holds open, when the replica stops. */
    private readonly release: () => void = () => undefined,
  ) {}

  /**
   * A probe of `url`: `SELECT 1` within PROBE_TIMEOUT_MS on a connection of its own, kept between
   * probes (a query a second costs nothing) and opened again after any failure.
   */
  static probing(url: string): DatabaseHealth {
    let client: Client | null = null;
    return new DatabaseHealth(
      async () => {
        try {
          if (!client) {
            client = new Client({
              connectionString: url,
              connectionTimeoutMillis: PROBE_TIMEOUT_MS,
              query_timeout: PROBE_TIMEOUT_MS,
              keepAlive: true,
            });
            client.on('error', () => undefined);
            await client.connect();
          }
          await client.query('SELECT 1');
        } catch (error) {
          const broken = client;
          client = null;
          broken?.connection.stream.destroy();
          throw error;
        }
      },
      () => void client?.end().catch(() => undefined),
    );
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
    this.release();
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
        `The database does not answer (${errorMessage(error)}); requests that need it fail at once until it does`,
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
      // A failure is checked again at once, so that a partition is known within two timeouts.
      void this.check().then(() =>
        this.schedule(this.failures > 0 && this.available ? 0 : PROBE_EVERY_MS),
      );
    }, ms);
    this.timer.unref();
  }
}
