import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Tool } from '../tools/tool.entity';
import { ConsolidatedTool } from './consolidated-tool.entity';

/** One target of a consolidated tool: its label (`eu-west`) and the gateway tool it calls. */
@Entity({ name: 'consolidated_member' })
@Index('consolidated_member_tool_uq', ['consolidatedToolId', 'toolId'], { unique: true })
@Index('consolidated_member_tool_idx', ['toolId'])
export class ConsolidatedMember {
  @PrimaryColumn({
    name: 'consolidated_tool_id',
    type: 'uuid',
    primaryKeyConstraintName: 'consolidated_member_pk',
  })
  consolidatedToolId!: string;

  @PrimaryColumn({
    type: 'varchar',
    length: 64,
    primaryKeyConstraintName: 'consolidated_member_pk',
  })
  target!: string;

  @Column({ name: 'tool_id', type: 'uuid' })
  toolId!: string;

  @ManyToOne(() => ConsolidatedTool, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'consolidated_tool_id',
    foreignKeyConstraintName: 'consolidated_member_consolidated_tool_fk',
  })
  consolidatedTool?: ConsolidatedTool;

  /** A tool gone upstream takes its target with it. */
  @ManyToOne(() => Tool, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tool_id', foreignKeyConstraintName: 'consolidated_member_tool_fk' })
  tool?: Tool;
}
