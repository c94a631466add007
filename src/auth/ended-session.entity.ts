import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An admin session its user logged out of before it expired, kept until then: its signed cookie
 * still verifies, so every replica must know it ended.
 */
@Entity({ name: 'admin_session_end' })
export class EndedSession {
  /** The session's random id (its cookie's `sid`). */
  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'admin_session_end_pk' })
  sid!: string;

  /** When the cookie expires anyway; the row may go then. */
  @Index('admin_session_end_expires_idx')
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
