import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';
import { Server } from '../../servers/server.entity';
import type { InitializeRequest, LoggingLevel } from '@modelcontextprotocol/server';
import { STORABLE_JSON } from '../../common/untrusted-text';

export type McpSessionTransport = 'streamable-http' | 'sse';

/**
 * One MCP client session. Everything a replica needs to serve any request of the session lives
 * here, so that no replica holds state another lacks: no sticky sessions.
 */
@Entity({ name: 'mcp_session' })
@Index('mcp_session_last_seen_idx', ['lastSeenAt'])
@Index('mcp_session_subject_idx', ['subject', 'lastSeenAt'])
export class McpSession {
  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'mcp_session_pk' })
  id!: string;

  /** The virtual server it is bound to; null for the gateway-wide `/mcp`. */
  @Column({ name: 'server_id', type: 'uuid', nullable: true })
  serverId!: string | null;

  @ManyToOne(() => Server, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'server_id', foreignKeyConstraintName: 'mcp_session_server_fk' })
  server?: Server;

  /** Subject of the token that opened it; other subjects may not use it. */
  @Column({ type: 'varchar', length: 128 })
  subject!: string;

  /**
   * The Portico user behind that subject, if any: the account whose own OAuth tokens per-user
   * upstreams get. Fixed for the session's life, as the subject is.
   */
  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId!: string | null;

  /**
   * Whether the token that opened it is one a token service can exchange (Portico's
   * authorization server's, or the identity provider's): only then do its calls to a
   * token-exchange upstream carry a token exchanged for its subject's.
   */
  @Column({ type: 'boolean', default: false })
  exchangeable!: boolean;

  @Column({ name: 'protocol_version', type: 'varchar', length: 32 })
  protocolVersion!: string;

  /** `streamable-http`, or `sse` for the older HTTP+SSE transport (2024-11-05). */
  @Column({ type: 'varchar', length: 16, default: 'streamable-http' })
  transport!: McpSessionTransport;

  /**
   * The client's initialize params (capabilities, clientInfo); null until the client initializes,
   * which on the older transport comes after its stream opened.
   */
  @Column({
    name: 'initialize_params',
    type: 'jsonb',
    nullable: true,
    transformer: STORABLE_JSON,
  })
  initializeParams!: InitializeRequest['params'] | null;

  @Column({ name: 'log_level', type: 'varchar', length: 16, nullable: true })
  logLevel!: LoggingLevel | null;

  /** Resource URIs (as the client named them) the client subscribed to. */
  @Column({ type: 'jsonb', default: () => "'[]'", transformer: STORABLE_JSON })
  subscriptions!: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'last_seen_at', type: 'timestamptz' })
  lastSeenAt!: Date;
}
