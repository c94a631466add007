import {
  Check,
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
import { Gateway } from '../gateways/gateway.entity';
import { Server } from '../servers/server.entity';

/** Whose calls one bucket counts: each API token's (or session's), or each person's. */
export const RATE_LIMIT_KEYS = ['token', 'user'] as const;
export type RateLimitKey = (typeof RATE_LIMIT_KEYS)[number];

/**
 * At most `points` tool calls per `windowSeconds`, counted per token or per user, on one virtual
 * server or everywhere, for one tool or all of them.
 *
 * A tool is named by its gateway and upstream name, not by its row: a sync deletes the row of a
 * tool its upstream stops listing and inserts a new one when it is listed again, and the limit
 * must hold on the tool that comes back rather than go with the row that left.
 */
@Entity({ name: 'rate_limit' })
@Index('rate_limit_server_idx', ['serverId'])
@Index('rate_limit_tool_idx', ['gatewayId', 'toolName'])
@Check('rate_limit_tool_check', `("gateway_id" IS NULL) = ("tool_name" IS NULL)`)
export class RateLimit {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'rate_limit_pk' })
  id!: string;

  @Column({ type: 'varchar', length: 8 })
  per!: RateLimitKey;

  /** Null: every endpoint (`/mcp`, every server, REST invoke). */
  @Column({ name: 'server_id', type: 'uuid', nullable: true })
  serverId!: string | null;

  /** The gateway of the one tool it counts; null, with `toolName`: every tool, counted together. */
  @Column({ name: 'gateway_id', type: 'uuid', nullable: true })
  gatewayId!: string | null;

  /** The upstream (original) name of the one tool it counts. */
  @Column({ name: 'tool_name', type: 'varchar', length: 128, nullable: true })
  toolName!: string | null;

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

  @ManyToOne(() => Gateway, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'gateway_id', foreignKeyConstraintName: 'rate_limit_gateway_fk' })
  gateway?: Gateway;
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
