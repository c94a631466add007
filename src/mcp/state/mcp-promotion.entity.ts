import {
  Check,
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { McpSession } from './mcp-session.entity';

/**
 * The tool-search promotions of one conversation's owner (see ownerKey): a 2025 session, or on
 * the modern wire, which has no session, the principal in its scope. One row per owner; the names
 * are bounded (MAX_PROMOTED_NAMES). A session's row goes with the session (the foreign key); a
 * principal's, once untouched for long.
 */
@Entity({ name: 'mcp_promotion' })
@Index('mcp_promotion_updated_idx', ['updatedAt'])
@Index('mcp_promotion_session_idx', ['sessionId'])
@Check(
  'mcp_promotion_owner_check',
  `("session_id" IS NULL AND "owner" LIKE 'principal:%') OR ("session_id" IS NOT NULL AND "owner" = 'session:' || "session_id")`,
)
export class McpPromotion {
  /** `session:<id>` or `principal:<scope key>:<subject>`. */
  @PrimaryColumn({ type: 'varchar', length: 256, primaryKeyConstraintName: 'mcp_promotion_pk' })
  owner!: string;

  /** The session that owns the row; null for a principal's. */
  @Column({ name: 'session_id', type: 'varchar', length: 64, nullable: true })
  sessionId!: string | null;

  // By name: search sits below the 2025 adapter, so it takes only the session's type from there.
  @ManyToOne('McpSession', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'session_id', foreignKeyConstraintName: 'mcp_promotion_session_fk' })
  session?: McpSession;

  /** The hash of the catalogue the names were promoted from. */
  @Column({ name: 'catalog_hash', type: 'varchar', length: 128 })
  catalogHash!: string;

  @Column({ type: 'jsonb' })
  names!: string[];

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
