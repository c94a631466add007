import {
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Tool } from '../tools/tool.entity';
import { type JsonObject } from '../common/json-value';
import { Server } from './server.entity';
import { STORABLE_JSON } from '../common/untrusted-text';

/**
 * How one virtual server shows one tool: its exposed name, title, description and annotations.
 * Keyed by the tool's id, which a sync keeps while the upstream keeps the tool, so an override
 * outlives every resync; it goes only with the tool or the server. It also outlives the tool
 * leaving the server's members, and applies again if it comes back.
 */
@Entity({ name: 'server_tool_override' })
@Index('server_tool_override_tool_idx', ['toolId'])
export class ServerToolOverride {
  @PrimaryColumn({
    name: 'server_id',
    type: 'uuid',
    primaryKeyConstraintName: 'server_tool_override_pk',
  })
  serverId!: string;

  @PrimaryColumn({
    name: 'tool_id',
    type: 'uuid',
    primaryKeyConstraintName: 'server_tool_override_pk',
  })
  toolId!: string;

  /** The name the server lists and routes; null keeps the server's naming. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  name!: string | null;

  @Column({ type: 'varchar', length: 256, nullable: true })
  title!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  /** Merged over the upstream's annotations, key by key. */
  @Column({ type: 'jsonb', nullable: true, transformer: STORABLE_JSON })
  annotations!: JsonObject | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @ManyToOne(() => Server, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'server_id', foreignKeyConstraintName: 'server_tool_override_server_fk' })
  server?: Server;

  @ManyToOne(() => Tool, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tool_id', foreignKeyConstraintName: 'server_tool_override_tool_fk' })
  tool?: Tool;
}
