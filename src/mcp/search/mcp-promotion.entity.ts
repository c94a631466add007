import { Column, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * The tool-search promotions of one principal in one scope: on the modern wire there is no
 * session, so the principal in its scope is the conversation's owner. One row per owner; the
 * names are bounded (MAX_PROMOTED_NAMES), and rows untouched for long are purged.
 */
@Entity({ name: 'mcp_promotion' })
@Index('mcp_promotion_updated_idx', ['updatedAt'])
export class McpPromotion {
  /** `all`, or `server:<id>` (see scopeKey). */
  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'mcp_promotion_pk' })
  scope!: string;

  @PrimaryColumn({ type: 'varchar', length: 128, primaryKeyConstraintName: 'mcp_promotion_pk' })
  subject!: string;

  /** The hash of the catalogue the names were promoted from. */
  @Column({ name: 'catalog_hash', type: 'varchar', length: 128 })
  catalogHash!: string;

  @Column({ type: 'jsonb' })
  names!: string[];

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
