import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { type Role } from '../auth/roles';
import { Server } from '../servers/server.entity';
import { Team } from '../teams/team.entity';
import { Tool } from '../tools/tool.entity';

export const RULE_EFFECTS = ['allow', 'deny'] as const;
export type RuleEffect = (typeof RULE_EFFECTS)[number];

/**
 * Allows or denies one tool to a team, a role, or both (a rule with neither matches everyone).
 * With a server it holds on that server's endpoint only; without, everywhere: `/mcp`, every
 * server and REST invoke. How rules combine is in tool-policy.ts.
 */
@Entity({ name: 'tool_rule' })
@Index('tool_rule_tool_idx', ['toolId'])
@Index('tool_rule_server_idx', ['serverId'])
export class ToolRule {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'tool_rule_pk' })
  id!: string;

  @Column({ name: 'tool_id', type: 'uuid' })
  toolId!: string;

  @Column({ name: 'server_id', type: 'uuid', nullable: true })
  serverId!: string | null;

  @Column({ type: 'varchar', length: 8 })
  effect!: RuleEffect;

  @Index('tool_rule_team_idx')
  @Column({ name: 'team_id', type: 'uuid', nullable: true })
  teamId!: string | null;

  @Column({ type: 'varchar', length: 16, nullable: true })
  role!: Role | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @ManyToOne(() => Tool, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tool_id', foreignKeyConstraintName: 'tool_rule_tool_fk' })
  tool?: Tool;

  @ManyToOne(() => Server, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'server_id', foreignKeyConstraintName: 'tool_rule_server_fk' })
  server?: Server;

  @ManyToOne(() => Team, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'team_id', foreignKeyConstraintName: 'tool_rule_team_fk' })
  team?: Team;
}
