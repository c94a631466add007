import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/**
 * How a virtual server names its members: `prefixed` under their virtual names (gateway slug,
 * separator, upstream name; resource URIs behind the slug), `original` under their upstream names
 * and URIs, which must then not clash between members.
 */
export const SERVER_NAMINGS = ['prefixed', 'original'] as const;
export type ServerNaming = (typeof SERVER_NAMINGS)[number];

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

  @Column({ name: 'tool_search_enabled', type: 'boolean', default: false })
  toolSearchEnabled!: boolean;

  /** Virtual names that stay listed when tool search defers the rest. */
  @Column({ name: 'tool_search_always_loaded', type: 'jsonb', default: () => "'[]'" })
  toolSearchAlwaysLoaded!: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
