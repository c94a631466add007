import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Gateway } from '../gateways/gateway.entity';
import { type JsonObject } from '../common/json-value';
import { PinColumns } from '../pin-state/pin-columns';

/** One resource template (RFC 6570) an upstream lists. */
@Entity({ name: 'resource_template' })
@Index('resource_template_gateway_uri_uq', ['gatewayId', 'uriTemplate'], { unique: true })
// Partial: only held entries, for the quarantine queue.
@Index('resource_template_quarantine_idx', { synchronize: false })
export class ResourceTemplate {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'resource_template_pk' })
  id!: string;

  @Column({ name: 'gateway_id', type: 'uuid' })
  gatewayId!: string;

  @ManyToOne(() => Gateway, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'gateway_id', foreignKeyConstraintName: 'resource_template_gateway_fk' })
  gateway?: Gateway;

  @Column({ name: 'gateway_slug', type: 'varchar', length: 64 })
  gatewaySlug!: string;

  /** The upstream's template. */
  @Column({ name: 'uri_template', type: 'text' })
  uriTemplate!: string;

  @Column({ type: 'varchar', length: 256 })
  name!: string;

  @Column({ type: 'varchar', length: 256, nullable: true })
  title!: string | null;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ name: 'mime_type', type: 'varchar', length: 256, nullable: true })
  mimeType!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  annotations!: JsonObject | null;

  @Column({ type: 'jsonb', nullable: true })
  meta!: JsonObject | null;

  @Column({ name: 'content_hash', type: 'varchar', length: 64 })
  contentHash!: string;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column(() => PinColumns, { prefix: false })
  pin!: PinColumns;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
