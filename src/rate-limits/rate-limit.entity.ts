import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Server } from '../servers/server.entity';
import { Tool } from '../tools/tool.entity';

/** Whose calls one bucket counts: each API token's (or session's), or each person's. */
export const RATE_LIMIT_KEYS = ['token', 'user'] as const;
export type RateLimitKey = (typeof RATE_LIMIT_KEYS)[number];

/**
 * At most `points` tool calls per `windowSeconds`, counted per token or per user, on one virtual
 * server or everywhere, for one tool or all of them.
 */
@Entity({ name: 'rate_limit' })
@Index('rate_limit_server_idx', ['serverId'])
@Index('rate_limit_tool_idx', ['toolId'])
export class RateLimit {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'rate_limit_pk' })
  id!: string;

  @Column({ type: 'varchar', length: 8 })
  per!: RateLimitKey;

  /** Null: every endpoint (`/mcp`, every server, REST invoke). */
  @Column({ name: 'server_id', type: 'uuid', nullable: true })
  serverId!: string | null;

  /** Null: every tool, counted together. */
  @Column({ name: 'tool_id', type: 'uuid', nullable: true })
  toolId!: string | null;

  @Column({ type: 'integer' })
  points!: number;

  @Column({ name: 'window_seconds', type: 'integer' })
  windowSeconds!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @ManyToOne(() => Server, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'server_id', foreignKeyConstraintName: 'rate_limit_server_fk' })
  server?: Server;

  @ManyToOne(() => Tool, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tool_id', foreignKeyConstraintName: 'rate_limit_tool_fk' })
  tool?: Tool;
}

/**
 * The counters of `rate-limiter-flexible`'s PostgreSQL store, in the layout it expects. Declared
 * here so that the migrations create it and the library never runs DDL at start-up.
 */
@Entity({ name: 'rate_limit_counter' })
export class RateLimitCounter {
  @PrimaryColumn({
    type: 'varchar',
    length: 255,
    primaryKeyConstraintName: 'rate_limit_counter_pk',
  })
  key!: string;

  @Column({ type: 'integer', default: 0 })
  points!: number;

  /** Epoch milliseconds. */
  @Column({ type: 'bigint', nullable: true })
  expire!: string | null;
}
