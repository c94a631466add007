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

/** One resource an upstream lists, stored under its upstream URI. */
@Entity({ name: 'resource' })
@Index('resource_gateway_uri_uq', ['gatewayId', 'uri'], { unique: true })
export class Resource {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'resource_pk' })
  id!: string;

  @Column({ name: 'gateway_id', type: 'uuid' })
  gatewayId!: string;

  @ManyToOne(() => Gateway, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'gateway_id', foreignKeyConstraintName: 'resource_gateway_fk' })
  gateway?: Gateway;

  /** Copy of the gateway's slug: prefixed servers show the URI behind it. */
  @Column({ name: 'gateway_slug', type: 'varchar', length: 64 })
  gatewaySlug!: string;

  /** The upstream's URI, used when reading it. */
  @Column({ type: 'text' })
  uri!: string;

  @Column({ type: 'varchar', length: 256 })
  name!: string;

  @Column({ type: 'varchar', length: 256, nullable: true })
  title!: string | null;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ name: 'mime_type', type: 'varchar', length: 256, nullable: true })
  mimeType!: string | null;

  @Column({ type: 'bigint', nullable: true })
  size!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  annotations!: JsonObject | null;

  @Column({ type: 'jsonb', nullable: true })
  meta!: JsonObject | null;

  @Column({ name: 'content_hash', type: 'varchar', length: 64 })
  contentHash!: string;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
