import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

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
