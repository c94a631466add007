import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import { DataSource, LessThan, MoreThan } from 'typeorm';
import { Memo } from '../../common/memo';
import { McpStreamEvent } from '../state/mcp-stream-event.entity';

/** The id of a session's own stream (GET); other streams belong to one POSTed request. */
export const SESSION_STREAM = 'get';

/** How long stream messages are kept for clients that reconnect. */
export const STREAM_EVENT_TTL_MS = 60 * 60_000;
/**
 * The most messages one session keeps for resumption, its newest: an upstream that talks without
 * end to a session fills neither the database nor a resuming client's replay.
 */
export const SESSION_EVENTS_KEPT = 10_000;
/** A session's appends on one replica between two trims of what it keeps. */
const TRIM_EVERY = 500;
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
  /** Appends since the last trim, by session (forgotten all at once when full: a trim comes later). */
  private readonly untrimmed = new Memo<string, number>(10_000);

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
    const untrimmed = (this.untrimmed.get(sessionId) ?? 0) + 1;
    this.untrimmed.remember(sessionId, untrimmed % TRIM_EVERY);
    // Not awaited: the message goes out now; a trim that fails is tried again later.
    if (untrimmed === TRIM_EVERY) void this.trim(sessionId);
    return eventIdOf(streamId, String(result.identifiers[0]!.id));
  }

  /** Drops what the session keeps beyond its newest SESSION_EVENTS_KEPT messages. */
  private async trim(sessionId: string): Promise<void> {
    try {
      await this.dataSource.query(
        `DELETE FROM mcp_stream_event WHERE session_id = $1 AND id <= (
           SELECT id FROM mcp_stream_event WHERE session_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
        [sessionId, SESSION_EVENTS_KEPT],
      );
    } catch (error) {
      this.logger.warn(`Could not trim the stream events of a session: ${String(error)}`);
    }
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
