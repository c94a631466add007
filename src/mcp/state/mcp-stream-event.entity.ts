import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { McpSession } from './mcp-session.entity';

/**
 * A message sent on one of a session's event streams, kept for a while so that a client that
 * reconnects with `Last-Event-ID` gets what it missed, from any replica. The id orders events
 * across replicas and is the part of the event id after the stream's.
 */
@Entity({ name: 'mcp_stream_event' })
@Index('mcp_stream_event_stream_idx', ['sessionId', 'streamId', 'id'])
@Index('mcp_stream_event_created_idx', ['createdAt'])
export class McpStreamEvent {
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'mcp_stream_event_pk' })
  id!: string;

  @Column({ name: 'session_id', type: 'varchar', length: 64 })
  sessionId!: string;

  @ManyToOne(() => McpSession, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'session_id', foreignKeyConstraintName: 'mcp_stream_event_session_fk' })
  session?: McpSession;

  /** `get` for the session's own stream; a random id for the stream of one POSTed request. */
  @Column({ name: 'stream_id', type: 'varchar', length: 32 })
  streamId!: string;

  @Column({ type: 'jsonb' })
  message!: JSONRPCMessage;

  /** The message's size as JSON text, which bounds what a session keeps and a replay reads. */
  @Column({ type: 'integer', default: 0 })
  bytes!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
