import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource, LessThan } from 'typeorm';
import { DatabaseSettings } from '../config/slices/database.settings';
import { EventSettings } from '../config/slices/events.settings';
import { EventRelay } from './event-relay.entity';
import { ReplicaId } from './replica-id';
import { type Envelope, ReplicatedEventBus } from './replicated-event-bus';
import { errorMessage } from '../common/error-message';

const CHANNEL = 'portico_events';
/** NOTIFY payloads must stay under 8000 bytes; larger events travel through `event_relay`. */
const INLINE_LIMIT = 7000;
const RELAY_RETENTION_MS = 5 * 60 * 1000;
const RECONNECT_MS = 1000;
/** How often the listening connection is asked to answer, so that a silent one is noticed. */
const HEALTH_EVERY_MS = 2000;
/** How long connecting, and each of its queries, may take before the connection is given up. */
const LISTENER_TIMEOUT_MS = 3000;

/**
 * Crosses replicas with PostgreSQL LISTEN/NOTIFY on a dedicated connection. When that connection
 * is lost, or stops answering (a partition drops its packets), it is replaced, and every cache
 * drops what it holds once it listens again; publishing waits as ReplicatedEventBus says.
 */
@Injectable()
export class PgNotifyEventBus extends ReplicatedEventBus implements OnModuleInit, OnModuleDestroy {
  private listener: Client | null = null;
  private closed = false;
  private cleanup?: NodeJS.Timeout;
  private health?: NodeJS.Timeout;
  private checking = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly databaseSettings: DatabaseSettings,
    eventSettings: EventSettings,
    replica: ReplicaId,
  ) {
    super(replica, eventSettings.eventBus);
  }

  async onModuleInit(): Promise<void> {
    await this.listen();
    this.cleanup = setInterval(() => void this.purgeRelay(), RELAY_RETENTION_MS).unref();
    this.health = setInterval(() => void this.checkListener(), HEALTH_EVERY_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    this.stop();
    clearInterval(this.cleanup);
    clearInterval(this.health);
    await this.listener?.end().catch(() => undefined);
  }

  protected override async send(envelope: string): Promise<void> {
    let payload = envelope;
    if (Buffer.byteLength(payload) > INLINE_LIMIT) {
      const relay = await this.dataSource.getRepository(EventRelay).save({ payload });
      payload = JSON.stringify({ origin: this.replica.value, relay: relay.id });
    }
    await this.dataSource.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);
  }

  private async listen(): Promise<void> {
    if (this.databaseSettings.database.mode !== 'postgres')
      throw new Error('PgNotifyEventBus needs PostgreSQL');
    const client = new Client({
      connectionString: this.databaseSettings.database.url,
      application_name: 'portico events',
      connectionTimeoutMillis: LISTENER_TIMEOUT_MS,
      query_timeout: LISTENER_TIMEOUT_MS,
      keepAlive: true,
    });
    client.on('notification', (notification) => void this.notified(notification.payload ?? ''));
    client.on('error', (error) => void this.reconnect(client, error.message));
    client.on('end', () => void this.reconnect(client, 'the connection ended'));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.listener = client;
    // Whatever was published while no connection listened is lost: every cache starts over.
    this.heard();
  }

  /** Asks the listening connection to answer; one that does not is replaced. */
  private async checkListener(): Promise<void> {
    const client = this.listener;
    if (!client || this.checking) return;
    this.checking = true;
    try {
      // LISTEN again is a no-op that must be answered, and leaves the connection's last query
      // in pg_stat_activity saying what it is for.
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      await this.reconnect(client, errorMessage(error));
    } finally {
      this.checking = false;
    }
  }

  private async reconnect(broken: Client, reason: string): Promise<void> {
    if (this.listener !== broken || this.closed) return;
    this.listener = null;
    this.deaf(`the listening connection was lost: ${reason}`);
    // A connection that stopped answering may not close politely: never wait on it.
    void broken.end().catch(() => undefined);
    while (!this.closed && !this.listener) {
      try {
        await this.listen();
      } catch {
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS).unref());
      }
    }
  }

  /** A notification: an envelope, or where the relay table keeps a large one. */
  private async notified(payload: string): Promise<void> {
    try {
      const parsed = JSON.parse(payload) as Envelope | { origin?: string; relay: string };
      if (!('relay' in parsed)) {
        this.receive(parsed);
        return;
      }
      if (this.isOwn(parsed)) return;
      const relay = await this.dataSource.getRepository(EventRelay).findOneBy({ id: parsed.relay });
      if (relay) this.receive(JSON.parse(relay.payload) as Envelope);
    } catch (error) {
      this.undeliverable(error);
    }
  }

  private async purgeRelay(): Promise<void> {
    await this.dataSource
      .getRepository(EventRelay)
      .delete({ createdAt: LessThan(new Date(Date.now() - RELAY_RETENTION_MS)) })
      .catch(() => undefined);
  }
}
