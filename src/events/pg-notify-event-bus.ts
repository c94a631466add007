import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource, LessThan } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { EventRelay } from './event-relay.entity';
import { RESYNC } from './event-bus';
import { ReplicaId } from './replica-id';
import { type Envelope, ReplicatedEventBus } from './replicated-event-bus';

const CHANNEL = 'portico_events';
/** NOTIFY payloads must stay under 8000 bytes; larger events travel through `event_relay`. */
const INLINE_LIMIT = 7000;
const RELAY_RETENTION_MS = 5 * 60 * 1000;
const RECONNECT_MS = 1000;

/** Crosses replicas with PostgreSQL LISTEN/NOTIFY on a dedicated connection. */
@Injectable()
export class PgNotifyEventBus extends ReplicatedEventBus implements OnModuleInit, OnModuleDestroy {
  private listener: Client | null = null;
  private closed = false;
  private cleanup?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    replica: ReplicaId,
  ) {
    super(replica);
  }

  async onModuleInit(): Promise<void> {
    await this.listen();
    this.cleanup = setInterval(() => void this.purgeRelay(), RELAY_RETENTION_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearInterval(this.cleanup);
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
    if (this.config.database.mode !== 'postgres')
      throw new Error('PgNotifyEventBus needs PostgreSQL');
    const client = new Client({ connectionString: this.config.database.url });
    client.on('notification', (notification) => void this.notified(notification.payload ?? ''));
    client.on('error', (error) => {
      this.log.warn(`Event listener connection lost: ${error.message}`);
      void this.reconnect(client);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.listener = client;
    // Whatever was published while no connection listened is lost: every cache starts over.
    this.deliver(RESYNC);
  }

  private async reconnect(broken: Client): Promise<void> {
    if (this.listener !== broken || this.closed) return;
    this.listener = null;
    await broken.end().catch(() => undefined);
    while (!this.closed && !this.listener) {
      try {
        await this.listen();
      } catch {
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
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
