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
import { Server } from '../servers/server.entity';
import { STORABLE_JSON } from '../common/untrusted-text';

export const POLICY_EFFECTS = ['allow', 'deny', 'approve'] as const;
export type PolicyEffect = (typeof POLICY_EFFECTS)[number];

/** How an `approve` policy asks: what the person is told, and how long a yes holds. */
export interface PolicyApproval {
  message: string | null;
  /** 0: ask at every call. */
  rememberSeconds: number;
}

/**
 * A rule written in CEL over the principal, the tool, the arguments and the time. In a scope the
 * enabled policies that hold there (the global ones and its server's) are tried by priority, then
 * name; the first whose expression is true decides. How they are compiled and judged is in
 * policy-set.ts.
 */
@Entity({ name: 'policy' })
@Index('policy_server_idx', ['serverId'])
export class Policy {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'policy_pk' })
  id!: string;

  @Index('policy_name_uq', { unique: true })
  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ type: 'text' })
  expression!: string;

  @Column({ type: 'varchar', length: 8 })
  effect!: PolicyEffect;

  /** Lower first. */
  @Column({ type: 'integer', default: 0 })
  priority!: number;

  /** Null: everywhere (`/mcp`, every server, REST invoke); else that server's endpoint only. */
  @Column({ name: 'server_id', type: 'uuid', nullable: true })
  serverId!: string | null;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** Set for `approve` only. */
  @Column({ type: 'jsonb', nullable: true, transformer: STORABLE_JSON })
  approval!: PolicyApproval | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @ManyToOne(() => Server, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'server_id', foreignKeyConstraintName: 'policy_server_fk' })
  server?: Server;
}
