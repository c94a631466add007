import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import { DataSource, LessThan } from 'typeorm';
import { Memo } from '../../common/memo';
import { storableJsonText } from '../../common/untrusted-text';
import { McpStreamEvent } from '../state/mcp-stream-event.entity';

/** The id of a session's own stream (GET); other streams belong to one POSTed request. */
export const SESSION_STREAM = 'get';

/** How long stream messages are kept for clients that reconnect. */
export const STREAM_EVENT_TTL_MS = 60 * 60_000;
/**
 * What one session keeps for resumption, its newest messages: at most this many, of at most
 * SESSION_EVENT_BYTES_KEPT in all (the newest message however large). An upstream that talks
 * without end to a session, in small messages or large ones, fills neither the database nor a
 * resuming client's replay.
 */
export const SESSION_EVENTS_KEPT = 10_000;
export const SESSION_EVENT_BYTES_KEPT = 64 * 1024 * 1024;
/** A session's appends on one replica between two trims of what it keeps: so many, or so large. */
const TRIM_EVERY = 500;
const TRIM_EVERY_BYTES = 8 * 1024 * 1024;
const PURGE_EVERY_MS = 5 * 60_000;
const EVENT_ID = /^([0-9a-f]{16}|get)\.(\d{1,18})$/;
/** What a replay reads at once: about this many bytes of messages, in at most so many rows. */
const REPLAY_PAGE_BYTES = 8 * 1024 * 1024;
const REPLAY_PAGE_ROWS = 500;

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
  private readonly untrimmed = new Memo<string, { count: number; bytes: number }>(10_000);

  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    const every = PURGE_EVERY_MS + Math.floor(Math.random() * 30_000);
    this.purger = setInterval(() => void this.purge(), every).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purger);
  }

  /**
   * Stores a message (`text`: it as JSON, when made already); resolves with its event id. What
   * PostgreSQL cannot store (a NUL, an unpaired surrogate) is kept repaired: the message goes
   * out as it came, and a replay of it, repaired.
   */
  async append(
    sessionId: string,
    streamId: string,
    message: JSONRPCMessage,
    text = JSON.stringify(message),
  ): Promise<string> {
    const bytes = Buffer.byteLength(text);
    const [row] = await this.dataSource.query<{ id: string }[]>(
      `INSERT INTO mcp_stream_event (session_id, stream_id, message, bytes)
       VALUES ($1, $2, $3::jsonb, $4) RETURNING id`,
      [sessionId, streamId, storableJsonText(text), bytes],
    );
    const since = this.untrimmed.get(sessionId) ?? { count: 0, bytes: 0 };
    const untrimmed = { count: since.count + 1, bytes: since.bytes + bytes };
    const due = untrimmed.count >= TRIM_EVERY || untrimmed.bytes >= TRIM_EVERY_BYTES;
    this.untrimmed.remember(sessionId, due ? { count: 0, bytes: 0 } : untrimmed);
    // Not awaited: the message goes out now; a trim that fails is tried again later.
    if (due) void this.trim(sessionId);
    return eventIdOf(streamId, String(row!.id));
  }

  /**
   * Drops what the session keeps beyond its newest SESSION_EVENTS_KEPT messages or beyond
   * SESSION_EVENT_BYTES_KEPT of them, whichever comes first; the newest stays.
   */
  private async trim(sessionId: string): Promise<void> {
    try {
      await this.dataSource.query(
        `DELETE FROM mcp_stream_event WHERE session_id = $1 AND id <= (
           SELECT id FROM (
             SELECT id, row_number() OVER newest AS n, sum(bytes) OVER newest AS total
               FROM mcp_stream_event WHERE session_id = $1 WINDOW newest AS (ORDER BY id DESC)
           ) kept
           WHERE n > $2 OR (n > 1 AND total > $3) ORDER BY id DESC LIMIT 1)`,
        [sessionId, SESSION_EVENTS_KEPT, SESSION_EVENT_BYTES_KEPT],
      );
    } catch (error) {
      this.logger.warn(`Could not trim the stream events of a session: ${String(error)}`);
    }
  }

  /**
   * The session's messages of that stream after the position, oldest first, a page at a time: a
   * page holds up to REPLAY_PAGE_BYTES of them (one message at least), so that a replay of many
   * large messages never holds them all.
   */
  async *after(sessionId: string, resumption: Resumption): AsyncGenerator<StoredEvent[]> {
    const { streamId } = resumption;
    for (let after = resumption.after; ;) {
      // One query a page: the newest row of the page is found from the stored sizes alone, so
      // only the page's messages are read.
      const rows = await this.dataSource.query<{ id: string; message: JSONRPCMessage }[]>(
        `SELECT id, message FROM mcp_stream_event
          WHERE session_id = $1 AND stream_id = $2 AND id > $3 AND id <= (
            SELECT max(id) FROM (
              SELECT id, bytes, sum(bytes) OVER (ORDER BY id) AS running FROM mcp_stream_event
               WHERE session_id = $1 AND stream_id = $2 AND id > $3 ORDER BY id LIMIT $5
            ) page WHERE running <= $4 OR running = bytes)
          ORDER BY id`,
        [sessionId, streamId, after, REPLAY_PAGE_BYTES, REPLAY_PAGE_ROWS],
      );
      if (rows.length === 0) return;
      yield rows.map((row) => ({
        eventId: eventIdOf(streamId, String(row.id)),
        message: row.message,
      }));
      after = rows.at(-1)!.id;
    }
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
