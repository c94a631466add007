import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Client } from 'pg';
import { DatabaseSettings } from '../config/slices/database.settings';

/** The session advisory lock whose holder watches upstreams and runs the periodic sync. */
export const SYNC_LEADER_LOCK = 'portico.sync-leader';
const RETRY_MIN_MS = 2000;
const RETRY_JITTER_MS = 1000;

export type LeadershipListener = (leading: boolean) => void;

/**
 * Decides which replica keeps connections open to every upstream and runs the periodic sync, so
 * that N replicas do not watch and sync everything N times. The leader is whichever replica holds
 * a session-level advisory lock on a dedicated connection; when it dies, PostgreSQL ends its
 * session, frees the lock, and another replica's next attempt takes over within a few seconds.
 * The embedded database serves a single process, which always leads.
 */
@Injectable()
export class SyncLeadership implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SyncLeadership.name);
  private readonly listeners = new Set<LeadershipListener>();
  private leading = false;
  private stopped = false;
  private connection: Client | null = null;
  private retry: NodeJS.Timeout | null = null;

  constructor(private readonly config: DatabaseSettings) {}

  get isLeader(): boolean {
    return this.leading;
  }

  onChange(listener: LeadershipListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onApplicationBootstrap(): void {
    if (this.config.database.mode === 'embedded') this.setLeading(true);
    else void this.attempt();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.setLeading(false);
    const connection = this.connection;
    this.connection = null;
    await connection?.end().catch(() => undefined);
  }

  private async attempt(): Promise<void> {
    this.retry = null;
    if (this.stopped || this.config.database.mode !== 'postgres') return;
    try {
      if (!this.connection) {
        const connection = await this.connect(this.config.database.url);
        if (this.stopped) {
          await connection.end();
          return;
        }
        this.connection = connection;
      }
      const { rows } = await this.connection.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked',
        [SYNC_LEADER_LOCK],
      );
      // Stopping meanwhile ended the connection, and with it any lock this query took.
      if (rows[0]?.locked === true && !this.stopped) {
        this.logger.log('This replica now watches upstreams and runs the periodic sync');
        this.setLeading(true);
        return;
      }
    } catch (error) {
      this.logger.debug(`Leadership attempt failed: ${String(error)}`);
      this.dropConnection();
    }
    this.scheduleAttempt();
  }

  private async connect(url: string): Promise<Client> {
    const connection = new Client({
      connectionString: url,
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
    });
    connection.on('error', (error) => this.onConnectionLost(connection, error));
    connection.on('end', () => this.onConnectionLost(connection));
    await connection.connect();
    return connection;
  }

  /** Losing the connection loses the lock: step down and campaign again. */
  private onConnectionLost(connection: Client, error?: Error): void {
    if (connection !== this.connection || this.stopped) return;
    this.logger.warn(`Lost the leadership connection${error ? `: ${error.message}` : ''}`);
    this.dropConnection();
    this.setLeading(false);
    this.scheduleAttempt();
  }

  private dropConnection(): void {
    const connection = this.connection;
    this.connection = null;
    void connection?.end().catch(() => undefined);
  }

  private scheduleAttempt(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(
      () => void this.attempt(),
      RETRY_MIN_MS + Math.random() * RETRY_JITTER_MS,
    );
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    for (const listener of this.listeners) listener(leading);
  }
}
