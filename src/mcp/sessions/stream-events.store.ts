import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import { DataSource, LessThan, MoreThan } from 'typeorm';
import { McpStreamEvent } from '../state/mcp-stream-event.entity';

/** The id of a session's own stream (GET); other streams belong to one POSTed request. */
export const SESSION_STREAM = 'get';

/** How long stream messages are kept for clients that reconnect. */
export const STREAM_EVENT_TTL_MS = 60 * 60_000;
const PURGE_EVERY_MS = 5 * 60_000;
const EVENT_ID = /^([0-9a-f]{16}|get)\.(\d{1,18})$/;

export interface StoredEvent {
  eventId: string;
  message: JSONRPCMessage;
}

/** Where a `Last-Event-ID` points: a stream of the session, and the events after it. */
export interface Resumption {
  streamId: string;
  after: string;
}

export function eventIdOf(streamId: string, id: string): string {
  return `${streamId}.${id}`;
}

/** The stream and position a `Last-Event-ID` names; null for one Portico never issued. */
export function parseEventId(eventId: string): Resumption | null {
  const match = EVENT_ID.exec(eventId);
  return match ? { streamId: match[1]!, after: match[2]! } : null;
}

/** Messages of sessions' event streams, in PostgreSQL, for replay to reconnecting clients. */
@Injectable()
export class StreamEvents implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(StreamEvents.name);
  private purger?: NodeJS.Timeout;

  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    const every = PURGE_EVERY_MS + Math.floor(Math.random() * 30_000);
    this.purger = setInterval(() => void this.purge(), every).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purger);
  }

  /** Stores a message; resolves with its event id. */
  async append(sessionId: string, streamId: string, message: JSONRPCMessage): Promise<string> {
    const result = await this.dataSource
      .getRepository(McpStreamEvent)
      .insert({ sessionId, streamId, message });
    return eventIdOf(streamId, String(result.identifiers[0]!.id));
  }

  /** The session's messages of that stream after the position, oldest first. */
  async after(sessionId: string, resumption: Resumption): Promise<StoredEvent[]> {
    const rows = await this.dataSource.getRepository(McpStreamEvent).find({
      select: { id: true, message: true },
      where: { sessionId, streamId: resumption.streamId, id: MoreThan(resumption.after) },
      order: { id: 'ASC' },
    });
    return rows.map((row) => ({
      eventId: eventIdOf(resumption.streamId, row.id),
      message: row.message,
    }));
  }

  async purge(): Promise<void> {
    try {
      await this.dataSource
        .getRepository(McpStreamEvent)
        .delete({ createdAt: LessThan(new Date(Date.now() - STREAM_EVENT_TTL_MS)) });
    } catch (error) {
      this.logger.warn(`Could not purge old stream events: ${String(error)}`);
    }
  }
}
