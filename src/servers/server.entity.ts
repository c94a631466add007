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
import { type HookConfig } from '../policies/hooks/hook-config';
import { Team } from '../teams/team.entity';
import { STORABLE_JSON } from '../common/untrusted-text';

/**
 * How a virtual server names its members: `prefixed` under their virtual names (gateway slug,
 * separator, upstream name; resource URIs behind the slug), `original` under their upstream names
 * and URIs, which must then not clash between members.
 */
export const SERVER_NAMINGS = ['prefixed', 'original'] as const;
export type ServerNaming = (typeof SERVER_NAMINGS)[number];

/**
 * The clients a virtual server takes, by era: `any`, or only `2025` sessions, or only
 * `2026-07-28` stateless requests (the other era is refused with its own unsupported-version
 * error, naming the versions the server takes).
 */
export const CLIENT_ERAS = ['any', '2025', '2026-07-28'] as const;
export type ClientEras = (typeof CLIENT_ERAS)[number];

@Entity({ name: 'server' })
export class Server {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'server_pk' })
  id!: string;

  @Index('server_name_uq', { unique: true })
  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'varchar', length: 16, default: 'prefixed' })
  naming!: ServerNaming;

  @Column({ name: 'client_eras', type: 'varchar', length: 16, default: 'any' })
  clientEras!: ClientEras;

  @Column({ name: 'tool_search_enabled', type: 'boolean', default: false })
  toolSearchEnabled!: boolean;

  /** Virtual names that stay listed when tool search defers the rest. */
  @Column({
    name: 'tool_search_always_loaded',
    type: 'jsonb',
    default: () => "'[]'",
    transformer: STORABLE_JSON,
  })
  toolSearchAlwaysLoaded!: string[];

  /**
   * The hooks run around each tool call on this server, in order: a name from the hook registry
   * and its settings.
   */
  @Column({ type: 'jsonb', default: () => "'[]'", transformer: STORABLE_JSON })
  hooks!: HookConfig[];

  /** The owning team; null: global, managed by admins only. */
  @Index('server_team_idx')
  @Column({ name: 'team_id', type: 'uuid', nullable: true })
  teamId!: string | null;

  @ManyToOne(() => Team, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'team_id', foreignKeyConstraintName: 'server_team_fk' })
  team?: Team;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
