import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource, LessThan } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { EventRelay } from './event-relay.entity';
import { type PorticoEvent, RESYNC } from './event-bus';
import { InProcessEventBus } from './in-process-event-bus';

const CHANNEL = 'portico_events';
/** NOTIFY payloads must stay under 8000 bytes; larger events travel through `event_relay`. */
const INLINE_LIMIT = 7000;
const RELAY_RETENTION_MS = 5 * 60 * 1000;
const RECONNECT_MS = 1000;

/** Crosses replicas with PostgreSQL LISTEN/NOTIFY on a dedicated connection. */
@Injectable()
export class PgNotifyEventBus extends InProcessEventBus implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(PgNotifyEventBus.name);
  private listener: Client | null = null;
  private closed = false;
  private cleanup?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {
    super();
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

  override async publish(event: PorticoEvent): Promise<void> {
    let payload = JSON.stringify(event);
    if (Buffer.byteLength(payload) > INLINE_LIMIT) {
      const relay = await this.dataSource.getRepository(EventRelay).save({ payload });
      payload = JSON.stringify({ relay: relay.id });
    }
    await this.dataSource.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);
  }

  private async listen(): Promise<void> {
    if (this.config.database.mode !== 'postgres')
      throw new Error('PgNotifyEventBus needs PostgreSQL');
    const client = new Client({ connectionString: this.config.database.url });
    client.on('notification', (notification) => void this.receive(notification.payload ?? ''));
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

  private async receive(payload: string): Promise<void> {
    try {
      const parsed = JSON.parse(payload) as PorticoEvent | { relay: string };
      if ('relay' in parsed) {
        const relay = await this.dataSource
          .getRepository(EventRelay)
          .findOneBy({ id: parsed.relay });
        if (relay) this.deliver(JSON.parse(relay.payload) as PorticoEvent);
        return;
      }
      this.deliver(parsed);
    } catch (error) {
      this.log.error(
        `Undeliverable event: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  private async purgeRelay(): Promise<void> {
    await this.dataSource
      .getRepository(EventRelay)
      .delete({ createdAt: LessThan(new Date(Date.now() - RELAY_RETENTION_MS)) })
      .catch(() => undefined);
  }
}
