import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Gateway } from '../gateways/gateway.entity';
import { type JsonObject } from '../common/json-value';
import { type PinKind } from './pinned-kinds';

/**
 * A tool, prompt or resource template gone from its upstream while a decision was on it
 * (pin-tombstone.ts): kept until it comes back, or until room is needed (TOMBSTONES_PER_GATEWAY),
 * and deleted with its gateway.
 */
@Entity({ name: 'pin_tombstone' })
@Index('pin_tombstone_key_uq', ['gatewayId', 'kind', 'key'], { unique: true })
@Index('pin_tombstone_shape_idx', ['gatewayId', 'kind', 'shape'])
export class PinTombstone {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pin_tombstone_pk' })
  id!: string;

  @Column({ name: 'gateway_id', type: 'uuid' })
  gatewayId!: string;

  @ManyToOne(() => Gateway, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'gateway_id', foreignKeyConstraintName: 'pin_tombstone_gateway_fk' })
  gateway?: Gateway;

  @Column({ type: 'varchar', length: 24 })
  kind!: PinKind;

  /** The upstream name, or URI template. */
  @Column({ type: 'text' })
  key!: string;

  @Column({ name: 'pinned_hash', type: 'varchar', length: 64, nullable: true })
  pinnedHash!: string | null;

  @Column({ name: 'rejected_hash', type: 'varchar', length: 64, nullable: true })
  rejectedHash!: string | null;

  @Column({ type: 'boolean' })
  enabled!: boolean;

  @Column({ name: 'content_hash', type: 'varchar', length: 64 })
  contentHash!: string;

  /** The definition stored when the entry left; null when it was too large to keep. */
  @Column({ type: 'jsonb', nullable: true })
  definition!: JsonObject | null;

  /** What a renamed look-alike keeps, and the rest but the name, hashed (rename-view.ts). */
  @Column({ type: 'varchar', length: 64 })
  shape!: string;

  @Column({ type: 'varchar', length: 64 })
  body!: string;

  @Column({ name: 'removed_at', type: 'timestamptz' })
  removedAt!: Date;
}
