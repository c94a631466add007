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

/** An authorization code: single use, short-lived, bound to its PKCE challenge and redirect URI. */
@Entity({ name: 'oauth_code' })
@Index('oauth_code_grant_idx', ['grantId'])
@Index('oauth_code_request_uq', ['requestId'], { unique: true })
export class OAuthCode {
  /** sha256 of the code, hex. */
  @PrimaryColumn({
    name: 'code_hash',
    type: 'char',
    length: 64,
    primaryKeyConstraintName: 'oauth_code_pk',
  })
  codeHash!: string;

  @Column({ name: 'grant_id', type: 'uuid' })
  grantId!: string;

  @ManyToOne(() => OAuthGrant, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'grant_id', foreignKeyConstraintName: 'oauth_code_grant_fk' })
  grant?: OAuthGrant;

  /** The authorization request it answers: one code per request, however often it is submitted. */
  @Column({ name: 'request_id', type: 'uuid', nullable: true })
  requestId!: string | null;

  @Column({ name: 'redirect_uri', type: 'text' })
  redirectUri!: string;

  /** S256 challenge; the code is useless without the matching verifier. */
  @Column({ name: 'code_challenge', type: 'varchar', length: 128 })
  codeChallenge!: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  /** Set at the exchange; presenting the code again revokes the grant (RFC 6749 §4.1.2). */
  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
