import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { type Role } from '../common/roles';
import { User } from '../users/user.entity';

/**
 * A managed API token. Only a hash of the value is kept; the value is shown once, at creation.
 * It acts for its owner, capped either at `role` or to the MCP endpoints of `serverIds`.
 */
@Entity({ name: 'api_token' })
@Index('api_token_owner_idx', ['ownerId'])
export class ApiToken {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'api_token_pk' })
  id!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  /** The first characters of the value, so that people can tell their tokens apart. */
  @Column({ type: 'varchar', length: 16 })
  prefix!: string;

  /** sha256 of the value, hex: the value has 256 random bits, so no slow hash is needed. */
  @Index('api_token_hash_uq', { unique: true })
  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash!: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId!: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'owner_id', foreignKeyConstraintName: 'api_token_owner_fk' })
  owner?: User;

  /** Set for a token that acts with a role; null for one limited to servers. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  role!: Role | null;

  /** Set for a token limited to the MCP endpoints of these servers. */
  @Column({ name: 'server_ids', type: 'uuid', array: true, nullable: true })
  serverIds!: string[] | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  /** Written in batches, so it may lag real use by a few seconds. */
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
