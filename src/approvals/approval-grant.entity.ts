import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Tool } from '../tools/tool.entity';

/**
 * A remembered yes: this principal approved calls of this tool under this policy until
 * `expiresAt`. Every replica keeps the valid ones in memory (RememberedApprovals).
 */
@Entity({ name: 'approval_grant' })
export class ApprovalGrant {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'approval_grant_pk' })
  id!: string;

  /** The principal's subject. */
  @Column({ type: 'varchar', length: 128 })
  subject!: string;

  @Column({ type: 'varchar', length: 255 })
  username!: string;

  @Column({ name: 'tool_id', type: 'uuid' })
  toolId!: string;

  @ManyToOne(() => Tool, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tool_id', foreignKeyConstraintName: 'approval_grant_tool_fk' })
  tool?: Tool;

  @Column({ name: 'policy_id', type: 'uuid' })
  policyId!: string;

  @Column({ name: 'policy_name', type: 'varchar', length: 128 })
  policyName!: string;

  /** The policy's revision when the yes was given; an edited policy asks again. */
  @Column({ name: 'policy_revision', type: 'varchar', length: 64, default: '' })
  policyRevision!: string;

  @CreateDateColumn({ name: 'granted_at', type: 'timestamptz' })
  grantedAt!: Date;

  @Index('approval_grant_expires_idx')
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
