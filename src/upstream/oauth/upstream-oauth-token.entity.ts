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
import { Gateway } from '../../gateways/gateway.entity';
import { User } from '../../users/user.entity';
import { STORABLE_TEXT } from '../../common/untrusted-text';

/** The owner key of a gateway's own connection (shared mode, client credentials, or sync). */
export const SHARED_OWNER = 'shared';

/**
 * The OAuth tokens Portico holds for one upstream: the gateway's own (owner `shared`) or one
 * user's (owner = the user's id). The tokens are sealed; only the upstream client opens them.
 */
@Entity({ name: 'upstream_oauth_token' })
@Index('upstream_oauth_token_owner_uq', ['gatewayId', 'owner'], { unique: true })
export class UpstreamOAuthToken {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'upstream_oauth_token_pk' })
  id!: string;

  @Column({ name: 'gateway_id', type: 'uuid' })
  gatewayId!: string;

  @ManyToOne(() => Gateway, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'gateway_id', foreignKeyConstraintName: 'upstream_oauth_token_gateway_fk' })
  gateway?: Gateway;

  /** `shared`, or the id of the user whose account this is. */
  @Column({ type: 'varchar', length: 64 })
  owner!: string;

  /** Set for a user's tokens, so that they go with the user. */
  @Index('upstream_oauth_token_user_idx')
  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId!: string | null;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'upstream_oauth_token_user_fk' })
  user?: User;

  /** AES-256-GCM sealed JSON of the token response; null once they were given up. */
  @Column({ type: 'text', nullable: true })
  tokens!: string | null;

  /** When the access token expires; null when the provider did not say. */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  /** Why the last refresh failed (the tokens are then gone and the account must reconnect). */
  @Column({ name: 'refresh_error', type: 'text', nullable: true, transformer: STORABLE_TEXT })
  refreshError!: string | null;

  @Column({ name: 'refreshed_at', type: 'timestamptz', nullable: true })
  refreshedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
