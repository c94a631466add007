import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { User } from '../users/user.entity';
import { OAuthClient } from './oauth-client.entity';

/**
 * What a user let one client do: use one MCP resource. Refresh tokens and access tokens belong to
 * a grant; revoking it ends them all.
 */
@Entity({ name: 'oauth_grant' })
@Index('oauth_grant_user_idx', ['userId'])
@Index('oauth_grant_client_idx', ['clientId'])
export class OAuthGrant {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'oauth_grant_pk' })
  id!: string;

  @Column({ name: 'client_id', type: 'varchar', length: 1024 })
  clientId!: string;

  @ManyToOne(() => OAuthClient, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'oauth_grant_client_fk' })
  client?: OAuthClient;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'oauth_grant_user_fk' })
  user?: User;

  /** The MCP endpoint URL (RFC 8707 resource) its tokens are bound to. */
  @Column({ type: 'text' })
  resource!: string;

  @Column({ type: 'text', default: '' })
  scope!: string;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
