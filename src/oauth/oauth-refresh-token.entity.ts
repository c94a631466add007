import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';
import { OAuthGrant } from './oauth-grant.entity';

/**
 * A refresh token. Each use rotates it: the old one is marked used, and presenting a used one
 * again (a stolen copy) revokes the whole grant.
 */
@Entity({ name: 'oauth_refresh_token' })
@Index('oauth_refresh_token_grant_idx', ['grantId'])
export class OAuthRefreshToken {
  /** sha256 of the token, hex. */
  @PrimaryColumn({
    name: 'token_hash',
    type: 'char',
    length: 64,
    primaryKeyConstraintName: 'oauth_refresh_token_pk',
  })
  tokenHash!: string;

  @Column({ name: 'grant_id', type: 'uuid' })
  grantId!: string;

  @ManyToOne(() => OAuthGrant, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'grant_id', foreignKeyConstraintName: 'oauth_refresh_token_grant_fk' })
  grant?: OAuthGrant;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
