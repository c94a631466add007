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

/** A prompt argument as MCP describes it. */
export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

/** One prompt an upstream lists; its virtual name is built like a tool's. */
@Entity({ name: 'prompt' })
@Index('prompt_gateway_original_name_uq', ['gatewayId', 'originalName'], { unique: true })
// The virtual-name expression index depends on the configured separator, as the tools' does.
@Index('prompt_virtual_name_uq', { synchronize: false })
// Partial: only held entries, for the quarantine queue.
@Index('prompt_quarantine_idx', { synchronize: false })
export class Prompt {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'prompt_pk' })
  id!: string;

  @Column({ name: 'gateway_id', type: 'uuid' })
  gatewayId!: string;

  @ManyToOne(() => Gateway, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'gateway_id', foreignKeyConstraintName: 'prompt_gateway_fk' })
  gateway?: Gateway;

  @Column({ name: 'original_name', type: 'varchar', length: 128 })
  originalName!: string;

  @Column({ name: 'gateway_slug', type: 'varchar', length: 64 })
  gatewaySlug!: string;

  @Column({ type: 'varchar', length: 256, nullable: true })
  title!: string | null;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  arguments!: PromptArgument[];

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
