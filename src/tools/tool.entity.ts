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
import type { ToolAppConfig } from './tool-app-config';
import { PinColumns } from '../pin-state/pin-columns';

@Entity({ name: 'tool' })
@Index('tool_gateway_original_name_uq', ['gatewayId', 'originalName'], { unique: true })
// The virtual-name expression index depends on the configured separator; see VirtualNameIndex.
@Index('tool_virtual_name_uq', { synchronize: false })
@Index('tool_virtual_name_trgm', { synchronize: false })
@Index('tool_description_trgm', { synchronize: false })
// Partial: only held entries, for the quarantine queue.
@Index('tool_quarantine_idx', { synchronize: false })
export class Tool {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'tool_pk' })
  id!: string;

  @Column({ name: 'gateway_id', type: 'uuid' })
  gatewayId!: string;

  @ManyToOne(() => Gateway, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'gateway_id', foreignKeyConstraintName: 'tool_gateway_fk' })
  gateway?: Gateway;

  /** The upstream's own name, used when calling it. */
  @Column({ name: 'original_name', type: 'varchar', length: 128 })
  originalName!: string;

  /** Copy of the gateway's slug, so that the virtual name is one indexable expression. */
  @Column({ name: 'gateway_slug', type: 'varchar', length: 64 })
  gatewaySlug!: string;

  @Column({ type: 'varchar', length: 256, nullable: true })
  title!: string | null;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ name: 'input_schema', type: 'jsonb' })
  inputSchema!: JsonObject;

  @Column({ name: 'output_schema', type: 'jsonb', nullable: true })
  outputSchema!: JsonObject | null;

  @Column({ type: 'jsonb', nullable: true })
  annotations!: JsonObject | null;

  /** The upstream `_meta`, including `_meta.ui`. */
  @Column({ type: 'jsonb', nullable: true })
  meta!: JsonObject | null;

  /** First 12 hex of sha256(gateway_id + "\0" + original_name); addresses MCP Apps backends. */
  @Index('tool_hash_uq', { unique: true })
  @Column({ name: 'tool_hash', type: 'varchar', length: 12 })
  toolHash!: string;

  /** sha256 over the upstream definition, for change detection during sync. */
  @Column({ name: 'content_hash', type: 'varchar', length: 64 })
  contentHash!: string;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** Operator-set MCP Apps settings (CSP, permissions, Prefab renderer). */
  @Column({ name: 'app_config', type: 'jsonb', nullable: true })
  appConfig!: ToolAppConfig | null;

  @Column(() => PinColumns, { prefix: false })
  pin!: PinColumns;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
